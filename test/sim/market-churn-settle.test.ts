/**
 * The market churn's replacement rule (src/sim/market-churn.ts `settleOutside`): a market whose
 * payout probability leaves the band resolves at once (seeded payout, before its deadline) and, with
 * `maxLiveMarkets`, a fresh market takes its place at the next pass; a market inside the band keeps
 * trading; the churn tells its listener of each market it creates and resolves.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLocalExchange } from '../../src/sim/local-exchange.ts';
import { churnIndexOf, createMarketChurn, resolutionPayout, type ChurnEvent } from '../../src/sim/market-churn.ts';
import { manualClock } from './account/harness.ts';

function setup(settleOutside: number) {
  const clock = manualClock();
  const ex = createLocalExchange({ seed: 3, markets: [], clock, apiKeys: [] });
  const events: ChurnEvent['type'][] = [];
  const churn = createMarketChurn(ex, {
    seed: 3,
    newMarketEveryMs: 500,
    lifetimeMs: 3_600_000,
    resolutionDelayMs: 0,
    maxLiveMarkets: 2,
    settleOutside,
    onEvent: (e) => events.push(e.type),
  });
  const fair = new Map<string, number>();
  churn.payoutProbability = (id) => fair.get(id);
  const active = () => [...ex.state.stores.markets.values()].filter((m) => m.status === 'active');
  const pass = () => {
    clock.advance(500);
    churn.step();
  };
  return { ex, churn, fair, active, pass, events };
}

test('a market whose probability leaves the band resolves at once and a fresh one replaces it', async () => {
  const { ex, churn, fair, active, pass, events } = setup(0.05);
  const [a, b] = [churn.createMarket()!, churn.createMarket()!];
  fair.set(a.id, 0.5);
  fair.set(b.id, 0.06);
  pass();
  assert.deepEqual(
    active().map((m) => m.id),
    [a.id, b.id],
    'inside the band (and at the cap): nothing resolves, nothing is created',
  );
  fair.set(b.id, 0.049);
  pass();
  const resolved = ex.state.stores.markets.get(b.id)!;
  assert.equal(resolved.status, 'resolved');
  assert.ok(resolved.deadline > ex.state.clock.now(), 'before its deadline');
  assert.deepEqual(resolved.payoutPcts, resolutionPayout(3, b.id, 0.049) === 1_000_000 ? [0, 100] : [100, 0]);
  const live = active();
  assert.equal(live.length, 2, 'replaced in the same pass');
  assert.equal(live[0]!.id, a.id);
  assert.equal(churnIndexOf(live[1]!), 3);
  const fresh = live[1]!.metadata.initialProbability as number;
  assert.ok(fresh >= 0.1 && fresh <= 0.9, `a fresh fair value, ${fresh}`);
  // the other bound, at its edge
  fair.set(a.id, 0.95);
  pass();
  assert.equal(ex.state.stores.markets.get(a.id)!.status, 'resolved');
  assert.equal(active().length, 2);
  assert.deepEqual(
    { created: churn.counts.created, resolved: churn.counts.resolved, settled: churn.counts.settled, closed: churn.counts.closed },
    { created: 4, resolved: 2, settled: 2, closed: 0 },
  );
  assert.deepEqual(events, ['created', 'created', 'resolved', 'created', 'resolved', 'created']);
  await ex.close();
});

test('without the band (0, the default) or a probability, only the deadline ends a market; a band of ½ or more is refused', async () => {
  const { churn, fair, active, pass, ex } = setup(0);
  const a = churn.createMarket()!;
  fair.set(a.id, 0.001);
  const b = churn.createMarket()!;
  pass();
  assert.deepEqual(
    active().map((m) => m.id),
    [a.id, b.id],
  );
  await ex.close();
  const other = setup(0.05);
  const c = other.churn.createMarket()!; // no probability reported for it
  other.pass();
  assert.equal(other.ex.state.stores.markets.get(c.id)!.status, 'active');
  await other.ex.close();
  assert.throws(() => setup(0.5), /settleOutside must be a probability/);
  assert.throws(() => setup(Number.NaN), /settleOutside must be a probability/);
});
