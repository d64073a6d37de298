/**
 * The end-to-end case on the churning local exchange: `bookmaker sim --new-market-every 3
 * --market-lifetime 6 --resolution-delay 3` (a separate process, with its counterparties), and a bot
 * started with `markets: { refreshSeconds: 1, select: [ { all: true } ] }` that
 *   - quotes markets created after it started (no restart),
 *   - retires markets as the venue closes them (deadline) and cancels its quotes there itself — the
 *     venue keeps resting orders of a closed market until it resolves — so no open order of ours is
 *     ever seen in a market after its resolution, nor left in a closed one,
 *   - never has two orders in one slot, an order past its size limit or a net position past its limit
 *     (sampled throughout, as the venue counts them),
 *   - leaves nothing open after stop.
 * The test waits for events (bounded), it asserts no timing.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { silentLogger } from '../../src/core/logger.ts';
import { parseConfigText } from '../../src/config/load-config.ts';
import type { VenueOrder } from '../../src/model/order.ts';
import { startBot } from '../../src/runtime/bot.ts';
import { ROTATING, waitFor, yaml, yesTerms, type Harness } from './harness.ts';
import { startSimProcess } from './sim-process.ts';

// The two paces run at once (each its own sim process and bot): the slow one mostly waits for its
// venue's clock, so the file takes about as long as that one alone.
describe('rotation on churning venues', { concurrency: 2 }, () => {
  test('rotation on a churning venue: new markets quoted, closed and resolved ones left clean', () =>
    churn(11, ['--new-market-every', '3', '--market-lifetime', '6', '--resolution-delay', '3'], 2, 90_000));

  // the issue's own figures: a market every 15 s living 45 s (about a minute: the first market created
  // after the start has to reach its deadline); one closed market retired is enough here
  test("rotation on the issue's churn (sim --new-market-every 15 --market-lifetime 45): the same, at the issue's pace", () =>
    churn(12, ['--new-market-every', '15', '--market-lifetime', '45', '--resolution-delay', '3'], 1, 150_000));
});

async function churn(seed: number, flags: string[], atLeast: number, waitMs: number): Promise<void> {
  const sim = await startSimProcess(seed, flags);
  try {
    const text = yaml({ baseUrl: sim.baseUrl } as Harness, {
      markets: ROTATING,
      // markets live 6 s here: the default pause before the deadline would keep them unquoted
      risk: `    maxPosition: 100\n    maxNotional: 100\n    maxOrderSize: 50\n    maxBookAgeSeconds: 30\n    maxStreamSilenceSeconds: 10\n    pauseBeforeDeadlineSeconds: 1`,
    });
    const cfg = await parseConfigText(text, '', { env: {} });
    const before = new Set<string>();
    for await (const m of sim.client.markets.iterate({ status: ['active'], limit: 50 })) before.add(m.id.toLowerCase());
    const bot = await startBot({
      config: cfg,
      logger: silentLogger,
      apiKey: sim.key,
      env: { BOOKMAKER_PRIVATE_KEY: sim.privateKey },
      metricsPort: 0,
      warmupMs: 3_000,
    });
    let stopped = false;
    /** markets (lower-case) where an order of ours was seen open, and the venue status then */
    const quotedNew = new Set<string>();
    const violations: string[] = [];
    const status = new Map<string, string>();
    const sample = async (): Promise<void> => {
      const open: VenueOrder[] = await sim.openOrders();
      const slots = new Map<string, number>();
      for (const o of open) {
        const k = o.marketId.toLowerCase();
        const s = `${k}|${yesTerms(o).side}`;
        slots.set(s, (slots.get(s) ?? 0) + 1);
        if (o.size > 50_000_000) violations.push(`order ${o.nonce} of ${o.size} past maxOrderSize`);
        if (!before.has(k)) quotedNew.add(k);
        const st = (await sim.client.markets.get(o.marketId)).status;
        status.set(k, st);
        if (st === 'resolved') violations.push(`open order ${o.nonce} in resolved market ${k}`);
      }
      for (const [s, n] of slots) if (n > 1) violations.push(`slot ${s} quoted ${n} times`);
      // the position limit (maxPosition 100 shares) holds in every market, as the venue counts it
      const held = new Map<string, number>();
      for (const t of (await sim.client.balance.summary(sim.wallet)).outcomeTokens) {
        const k = t.marketId.toLowerCase();
        held.set(k, (held.get(k) ?? 0) + (t.outcomeIndex === 1 ? 1 : -1) * Number(t.balance));
      }
      for (const [k, net] of held) if (Math.abs(net) > 100_000_000) violations.push(`position ${net} in ${k} past maxPosition`);
    };
    try {
      // markets created after the start get quoted, and closed ones get retired (before they resolve)
      await waitFor(
        `${atLeast} market(s) created after start quoted, and ${atLeast} retired as closed`,
        async () => {
          await sample();
          return quotedNew.size >= atLeast && (bot.rotation.totals().retired.closed ?? 0) >= atLeast;
        },
        waitMs,
      );
      assert.ok((bot.rotation.totals().started.selected ?? 0) >= atLeast);
      // nothing of ours rests in a market that is not active any more
      await waitFor('no order in closed markets', async () => {
        for (const o of await sim.openOrders()) {
          const st = (await sim.client.markets.get(o.marketId)).status;
          if (st !== 'active') return false;
        }
        return true;
      });
      assert.deepEqual(violations, []);
      // retired markets are gone from the bot: kernel slot, health model
      const retiredIds = bot.rotation
        .recent()
        .filter((e) => e.kind === 'retired')
        .map((e) => e.marketId);
      assert.ok(retiredIds.length >= atLeast);
      for (const id of retiredIds) {
        if (bot.rotation.isActive(id)) continue; // (not re-listed: a closed market never comes back)
        assert.equal(bot.kernel.hasMarket(id), false);
        assert.equal(bot.healthModel.marketState(id), null);
      }
      const code = await bot.stop('test');
      stopped = true;
      assert.equal(code, 0);
      assert.deepEqual(await sim.openOrders(), [], 'nothing left after stop');
    } finally {
      if (!stopped) await bot.stop('test');
    }
  } finally {
    await sim.close();
  }
}
