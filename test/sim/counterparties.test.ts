/**
 * `venue.local.agents` drive the simulated counterparties (src/sim/counterparties.ts counterpartyAgents):
 * the taker rate is shared by the noise and informed takers, zero takers means no taker flow at all, and
 * the config's defaults are the agents' own defaults (what `bookmaker sim` runs). Driven on a manual
 * clock, so the counts are the seeded draws, not timing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseVenue } from '../../src/config/parse-venue.ts';
import { counterpartyAgents, startCounterparties, type AgentCounts } from '../../src/sim/counterparties.ts';
import { createLocalExchange } from '../../src/sim/local-exchange.ts';
import { manualClock } from './account/harness.ts';

function agentsOf(raw: Record<string, unknown>): AgentCounts {
  const v = parseVenue({ local: { agents: raw } }, 'venue');
  if (v.kind !== 'local') throw new Error('not local');
  return v.local.agents;
}

test('the rate is shared by the takers; the defaults are the agents\' defaults, as bookmaker sim runs them', () => {
  assert.deepEqual(counterpartyAgents(agentsOf({})), { otherMakers: 1, agents: { noise: { ratePerSec: 0.3 }, informed: { ratePerSec: 0.2 } } });
  assert.deepEqual(counterpartyAgents({ noiseTakers: 3, informedTakers: 1, makers: 2, takerRatePerSecond: 4 }), { otherMakers: 2, agents: { noise: { ratePerSec: 3 }, informed: { ratePerSec: 1 } } });
  assert.deepEqual(counterpartyAgents({ noiseTakers: 0, informedTakers: 2, makers: 0, takerRatePerSecond: 1 }), { otherMakers: 0, agents: { noise: { ratePerSec: 0 }, informed: { ratePerSec: 1 } } });
  assert.deepEqual(counterpartyAgents({ noiseTakers: 0, informedTakers: 0, makers: 0, takerRatePerSecond: 0 }), { otherMakers: 0, agents: { noise: { ratePerSec: 0 }, informed: { ratePerSec: 0 } } });
  // bookmaker sim: startCounterparties without agent options
  const ex = createLocalExchange({ seed: 1, markets: 1, clock: manualClock(), expirySweepMs: 0 });
  const sim = startCounterparties(ex, { seed: 1 });
  const fromDefaults = startCounterparties(ex, { seed: 1, ...counterpartyAgents(agentsOf({})) });
  assert.deepEqual(fromDefaults.settings, sim.settings);
  sim.stop();
  fromDefaults.stop();
  void ex.close();
});

test('a rate with no takers to share it is a config error naming the key', () => {
  assert.throws(() => agentsOf({ noiseTakers: 0, informedTakers: 0, takerRatePerSecond: 2 }), /venue\.local\.agents\.takerRatePerSecond/);
  // left out (the default) or 0 is fine
  assert.equal(agentsOf({ noiseTakers: 0, informedTakers: 0 }).takerRatePerSecond, 0.5);
  assert.equal(agentsOf({ noiseTakers: 0, informedTakers: 0, takerRatePerSecond: 0 }).takerRatePerSecond, 0);
  assert.throws(() => agentsOf({ noiseTakers: -1 }), /venue\.local\.agents\.noiseTakers/);
  assert.throws(() => agentsOf({ takers: 3 }), /takers/);
});

/** IOC taker orders of the counterparties over `seconds` of exchange time on two markets. */
async function takerOrders(counts: AgentCounts, seconds: number): Promise<number> {
  const clock = manualClock();
  const ex = createLocalExchange({ seed: 3, markets: 2, clock, expirySweepMs: 0 });
  const markets = [...ex.state.stores.markets.values()].map((m) => m.id);
  let iocs = 0;
  const untap = ex.tapFlow({ markets }, (e) => {
    if (e.type === 'taker' && e.timeInForce !== 0) iocs++;
  });
  const cp = startCounterparties(ex, { seed: 3, intervalMs: 1e9, ...counterpartyAgents(counts) });
  for (let t = 0; t < seconds * 1000; t += 250) {
    clock.advance(250);
    cp.step();
  }
  untap();
  cp.stop();
  await ex.close();
  return iocs;
}

test('zero takers send no taker order; noise takers at 4 per second per market send about that many', async () => {
  assert.equal(await takerOrders({ noiseTakers: 0, informedTakers: 0, makers: 1, takerRatePerSecond: 0 }, 60), 0);
  // 4/s × 60 s × 2 markets = 480 expected arrivals (an arrival on an empty side sends nothing); the
  // agents' default (0.3/s) would give about 36
  const n = await takerOrders({ noiseTakers: 2, informedTakers: 0, makers: 1, takerRatePerSecond: 4 }, 60);
  assert.ok(n > 300 && n < 600, `noise taker orders: ${n}`);
});
