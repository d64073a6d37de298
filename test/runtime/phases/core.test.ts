/**
 * The core phase reads the kill-switch latch (src/runtime/phases/core.ts): a bot whose ledger holds a latch from
 * an earlier run is `kill-switch` on /readyz and in the metrics from the endpoints phase on, not `starting` until
 * the start-up reconcile is done. How: the bot starts on the local exchange in this process with a latched
 * ledger; the start-up reconcile's listing of the venue's orders is held at the exchange while the test reads
 * the bot's /readyz and /metrics (the answers it hands its watchdog). On the code before, both said starting.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../../src/core/logger.ts';
import { startBot } from '../../../src/runtime/bot.ts';
import type { Watchdog } from '../../../src/runtime/watchdog.ts';
import type { Handler, LookupResult } from '../../../src/sim/router.ts';
import { BOT_KEY, ledgerConfig, onLedgerExchange, waitFor, withTimeout } from '../../e2e/harness.ts';

type Exchange = Parameters<Parameters<typeof onLedgerExchange>[0]>[0];
type Answer = Parameters<Watchdog['serve']>[0];

/** A watchdog that keeps what the bot serves: the start-up's status first, the bot's own answers from the endpoints phase. */
function answers(): { watchdog: Watchdog; first: () => Answer | null; last: () => Answer | null } {
  let first: Answer | null = null;
  let last: Answer | null = null;
  const watchdog: Watchdog = {
    metricsUrl: null,
    serve: (a) => {
      first ??= a;
      last = a;
    },
    arm: () => undefined,
    scope: () => undefined,
    onStall: () => undefined,
    standDown: async () => undefined,
    close: async () => undefined,
  };
  return { watchdog, first: () => first, last: () => last };
}

/** Every listing of the bot's open orders at the exchange waits for `hold()` first. */
function holdListings(h: Exchange, hold: () => Promise<void>): void {
  const lookup = h.ex.router.lookup.bind(h.ex.router);
  h.ex.router.lookup = (method: string, path: string): LookupResult => {
    const r = lookup(method, path);
    if (!r.ok || method !== 'GET' || r.match.route.path !== '/orders') return r;
    const route = r.match.route;
    const handler: Handler = async (ctx) => {
      if (ctx.key?.key === BOT_KEY) await hold();
      return route.handler(ctx);
    };
    return { ok: true, match: { ...r.match, route: { ...route, handler } } };
  };
}

const start = async (h: Exchange, ledger: string, watchdog?: Watchdog) =>
  startBot({
    config: await ledgerConfig(h, ledger),
    logger: silentLogger,
    apiKey: BOT_KEY,
    env: { BOOKMAKER_PRIVATE_KEY: h.bot.privateKey },
    warmupMs: 3_000,
    newLedger: true,
    ...(watchdog ? { watchdog } : {}),
  });

test('a latched bot says kill-switch on /readyz and in the metrics during the start-up reconcile, not starting', async () => {
  await onLedgerExchange(async (h, ledger) => {
    // an earlier run latched the kill switch in this ledger
    const earlier = await start(h, ledger);
    earlier.ledger.latchKill('KILL_DRAWDOWN', 'drawdown 60 from peak 100', null);
    await earlier.stop();

    const { watchdog, first, last } = answers();
    const phase = async (): Promise<string | null> => {
      const a = first();
      return a ? ((JSON.parse((await a('GET', '/readyz')).body) as { phase?: string }).phase ?? null) : null;
    };
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let held = 0;
    holdListings(h, async () => {
      if ((await phase()) !== 'reconcile') return;
      held++;
      await released;
    });
    const started = start(h, ledger, watchdog).then(
      (b) => b,
      (e: Error) => e,
    );
    try {
      await waitFor('the start-up reconcile lists the venue’s orders', () => held > 0, 60_000);
      const bot = last();
      assert.ok(bot && bot !== first(), 'the bot serves its own answers from the endpoints phase');
      const readyz = await bot('GET', '/readyz');
      const body = JSON.parse(readyz.body) as { process: string; checks: Record<string, boolean>; markets: { state: string }[] };
      assert.equal(readyz.status, 503);
      assert.equal(body.process, 'halted', JSON.stringify(body));
      assert.equal(body.checks.notHalted, false);
      assert.deepEqual(
        body.markets.map((m) => m.state),
        h.markets.map(() => 'kill-switch'),
      );
      const metrics = (await bot('GET', '/metrics')).body;
      assert.match(metrics, /^bookmaker_kill_switch_active 1$/m);
      assert.match(metrics, /^bookmaker_market_state\{market="[^"]+",state="kill-switch"\} 1$/m);
      assert.doesNotMatch(metrics, /^bookmaker_market_state\{market="[^"]+",state="starting"\} 1$/m);
    } finally {
      release();
      const b = await withTimeout(started, 60_000, 'the latched bot did not end its start-up');
      if (!(b instanceof Error)) await b.stop();
    }
  });
});
