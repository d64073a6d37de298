/**
 * The start-up's last phases (src/runtime/phases/running.ts): nothing is placed before the start-up
 * reconcile and the checks after it (another trader on the wallet, a sibling shard's orders) have
 * passed. A second bot on a wallet another trader quotes on must refuse to start (WalletSharedError)
 * having sent no order: the kernel ticks only once those checks passed.
 *
 * How: a bot starts on the local exchange in this process with an order of another trader resting on
 * its wallet. The start-up reconcile's listing of the venue's orders is held 1.5 s at the exchange,
 * longer than the kernel's housekeeping round (1 s), which ticks every market of a started kernel.
 * On the code where the kernel started in the holds phase, that tick queued quotes behind the
 * reconcile and they were placed as the refusal was thrown (test/e2e/wallet-shared.e2e.test.ts saw
 * it once in a loaded CI).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Bytes32 } from '../../../src/model/order.ts';
import { startBot } from '../../../src/runtime/bot.ts';
import type { Watchdog } from '../../../src/runtime/watchdog.ts';
import type { Handler, LookupResult } from '../../../src/sim/router.ts';
import { BOT_KEY, ledgerConfig, onLedgerExchange, openOrders, place, withTimeout } from '../../e2e/harness.ts';
import { silentLogger } from '../../../src/core/logger.ts';
import { HttpError } from '../../../src/sim/http-errors.ts';

/** A watchdog that only keeps the start-up's status answer: the test reads the phase the bot is in from it. */
function phaseReader(): { watchdog: Watchdog; phase: () => Promise<string | null> } {
  let answer: Parameters<Watchdog['serve']>[0] | null = null;
  const watchdog: Watchdog = {
    metricsUrl: null,
    serve: (a) => void (answer ??= a),
    arm: () => undefined,
    scope: () => undefined,
    onStall: () => undefined,
    standDown: async () => undefined,
    close: async () => undefined,
  };
  const phase = async (): Promise<string | null> => {
    if (!answer) return null;
    const body = JSON.parse((await answer('GET', '/readyz')).body) as { phase?: string };
    return body.phase ?? null;
  };
  return { watchdog, phase };
}

const CREATE_ROUTES = new Set(['/orders', '/orders/bulk', '/orders/bulk/create', '/orders/cancel-replace']);

type Exchange = Parameters<Parameters<typeof onLedgerExchange>[0]>[0];
type Bot = Awaited<ReturnType<typeof startBot>>;

/**
 * At the exchange: `listing` runs before each of the bot's listings of its open orders (it may hold the answer or
 * throw one), `create` hears each create the bot sends (its route and body).
 */
function interceptBot(h: Exchange, o: { listing: () => Promise<void>; create: (what: string) => void }): void {
  const lookup = h.ex.router.lookup.bind(h.ex.router);
  h.ex.router.lookup = (method: string, path: string): LookupResult => {
    const r = lookup(method, path);
    if (!r.ok) return r;
    const route = r.match.route;
    let handler: Handler | null = null;
    if (method === 'GET' && route.path === '/orders')
      handler = async (ctx) => {
        if (ctx.key?.key === BOT_KEY) await o.listing();
        return route.handler(ctx);
      };
    else if (method === 'POST' && CREATE_ROUTES.has(route.path))
      handler = (ctx) => {
        if (ctx.key?.key === BOT_KEY) o.create(`${route.path} ${JSON.stringify(ctx.body).slice(0, 200)}`);
        return route.handler(ctx);
      };
    return handler ? { ok: true, match: { ...r.match, route: { ...route, handler } } } : r;
  };
}

/** The bot started on the exchange with a new ledger: the bot, or the error its start-up ended with. */
async function startOn(h: Exchange, ledger: string, watchdog: Watchdog, more: { startupDeadlineMs?: number } = {}): Promise<Bot | Error> {
  const config = await ledgerConfig(h, ledger);
  return startBot({
    config,
    logger: silentLogger,
    apiKey: BOT_KEY,
    env: { BOOKMAKER_PRIVATE_KEY: h.bot.privateKey },
    warmupMs: 3_000,
    newLedger: true,
    watchdog,
    ...more,
  }).then(
    (bot) => bot,
    (e: Error) => e,
  );
}

test("a second bot on a wallet with another trader's orders refuses to start having placed nothing, even when its markets tick during the start-up reconcile", async () => {
  await onLedgerExchange(async (h, ledger) => {
    const theirs = await place(h.bot, { marketId: h.markets[0]!, outcomeIndex: 1, side: 0, price: 100_000, shares: 5 });
    assert.ok(theirs);
    const { watchdog, phase } = phaseReader();
    // at the exchange: the bot's listings of its orders during the reconcile phase are held until `release`;
    // every create the bot sends is noted
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let held = 0;
    const creates: string[] = [];
    interceptBot(h, {
      listing: async () => {
        if ((await phase()) !== 'reconcile') return;
        held++;
        await released;
      },
      create: (what) => creates.push(what),
    });
    const started = startOn(h, ledger, watchdog);
    let releaseTimer: NodeJS.Timeout | undefined;
    try {
      // the listing is held from the moment the reconcile asks; 1.5 s later it is answered
      const first = await Promise.race([
        started,
        (async () => {
          for (let i = 0; i < 1_200 && held === 0; i++) await new Promise((r) => setTimeout(r, 50));
          return held > 0 ? 'held' : 'never held';
        })(),
      ]);
      assert.equal(first, 'held', `the start-up reconcile's listing was not seen: ${first instanceof Error ? first.message : String(first)}`);
      await new Promise<void>((r) => (releaseTimer = setTimeout(r, 1_500)));
      release();
      const outcome = await withTimeout(started, 60_000, 'the bot neither started nor refused');
      assert.ok(outcome instanceof Error, 'the bot started beside another trader');
      assert.equal(outcome.name, 'WalletSharedError', outcome.message);
      assert.deepEqual(creates, [], 'the refused bot sent no create');
      assert.deepEqual(
        (await openOrders(h.bot)).map((o) => o.nonce),
        [theirs.nonce as Bytes32],
        "the wallet holds the other trader's order alone",
      );
    } finally {
      clearTimeout(releaseTimer);
      release();
      const late = await withTimeout(started, 60_000, 'the bot did not end its start-up').catch((e: Error) => e);
      if (!(late instanceof Error)) await late.stop();
    }
  });
});

/**
 * The bot's listings of its open orders fail with 503 at the exchange from the first one in the reconcile phase
 * until `failForMs` later (Infinity: for good); every create the bot sends is noted with whether a listing had
 * succeeded before it.
 */
function failListings(h: Exchange, phase: () => Promise<string | null>, failForMs: number) {
  const seen = { failed: 0, listedOk: false, createsBeforeListing: [] as string[], creates: 0 };
  let failingSince: number | null = null;
  interceptBot(h, {
    listing: async () => {
      if (failingSince === null && (await phase()) === 'reconcile') failingSince = Date.now();
      if (failingSince !== null && Date.now() - failingSince < failForMs) {
        seen.failed++;
        throw new HttpError(503, 'SERVICE_UNAVAILABLE', 'the test fails the listing');
      }
      if (failingSince !== null) seen.listedOk = true;
    },
    create: (what) => {
      seen.creates++;
      if (!seen.listedOk) seen.createsBeforeListing.push(what);
    },
  });
  return seen;
}

test("nothing is quoted before the start-up reconcile has read the venue's open orders: a venue failing the listing (503) is retried, then the bot quotes", async () => {
  await onLedgerExchange(async (h, ledger) => {
    const { watchdog, phase } = phaseReader();
    const seen = failListings(h, phase, 4_000);
    const started = await withTimeout(startOn(h, ledger, watchdog), 90_000, 'the bot did not start');
    if (started instanceof Error) throw started;
    const bot = started;
    try {
      assert.ok(seen.failed > 0, 'the listing failed at least once in the reconcile phase');
      assert.ok(seen.listedOk, 'a listing succeeded before the start-up ended');
      for (let i = 0; i < 200 && seen.creates === 0; i++) await new Promise((r) => setTimeout(r, 50));
      assert.ok(seen.creates > 0, 'the bot quotes once the venue answers');
      assert.deepEqual(seen.createsBeforeListing, [], 'no create before the venue had been read');
    } finally {
      await bot.stop();
    }
  });
});

test('a venue that never answers the start-up listing ends the start-up at its deadline (VenueUnreachableError, exit 8), having placed nothing', async () => {
  await onLedgerExchange(async (h, ledger) => {
    const { watchdog, phase } = phaseReader();
    const seen = failListings(h, phase, Number.POSITIVE_INFINITY);
    const outcome = await withTimeout(startOn(h, ledger, watchdog, { startupDeadlineMs: 15_000 }), 90_000, 'the bot neither started nor gave up');
    if (!(outcome instanceof Error)) {
      await outcome.stop();
      assert.fail(`the bot started without reading the venue's open orders (${seen.creates} creates)`);
    }
    assert.equal(outcome.name, 'VenueUnreachableError', outcome.message);
    assert.ok(seen.failed > 0);
    assert.equal(seen.creates, 0, 'nothing placed');
  });
});
