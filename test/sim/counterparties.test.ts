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
import { CALIBRATED_FIT } from '../../src/sim/flow-presets.ts';
import { manualClock } from './account/harness.ts';

function agentsOf(raw: Record<string, unknown>): AgentCounts {
  const v = parseVenue({ local: { agents: raw } }, 'venue');
  if (v.kind !== 'local') throw new Error('not local');
  return v.local.agents;
}

test("the rate is shared by the takers; the defaults are the agents' defaults, as bookmaker sim runs them", () => {
  assert.deepEqual(counterpartyAgents(agentsOf({})), { otherMakers: 1, agents: { noise: { ratePerSec: 0.3 }, informed: { ratePerSec: 0.2 } } });
  assert.deepEqual(counterpartyAgents({ noiseTakers: 3, informedTakers: 1, makers: 2, takerRatePerSecond: 4 }), {
    otherMakers: 2,
    agents: { noise: { ratePerSec: 3 }, informed: { ratePerSec: 1 } },
  });
  assert.deepEqual(counterpartyAgents({ noiseTakers: 0, informedTakers: 2, makers: 0, takerRatePerSecond: 1 }), {
    otherMakers: 0,
    agents: { noise: { ratePerSec: 0 }, informed: { ratePerSec: 1 } },
  });
  assert.deepEqual(counterpartyAgents({ noiseTakers: 0, informedTakers: 0, makers: 0, takerRatePerSecond: 0 }), {
    otherMakers: 0,
    agents: { noise: { ratePerSec: 0 }, informed: { ratePerSec: 0 } },
  });
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

/** The hidden fair value of each market after `steps` steps, when market `resolveFirst` (if any) resolves before the first step. */
async function fairAfterStart(resolveFirst: number | null, steps: number): Promise<Map<string, number>> {
  const clock = manualClock();
  const ex = createLocalExchange({ seed: 11, markets: 4, clock, expirySweepMs: 0 });
  const ids = [...ex.state.stores.markets.values()].map((m) => m.id);
  const cp = startCounterparties(ex, { seed: 11, intervalMs: 1e9 });
  clock.advance(100); // a fraction of a second after start-up
  if (resolveFirst !== null) ex.state.services.resolveMarket(ids[resolveFirst]!, 1_000_000, clock.now(), 'test');
  for (let i = 0; i < steps; i++) {
    clock.advance(250);
    cp.step();
  }
  const out = new Map(cp.fair);
  // the books follow their own market's fair value: the background maker's mid is near it
  for (const id of ids) {
    const f = cp.fair.get(id.toLowerCase());
    const idx = ex.state.engine.marketIndex(id)!;
    const bid = ex.state.engine.engine.bestBid(idx);
    const ask = ex.state.engine.engine.bestAsk(idx);
    if (f !== undefined && bid > 0 && ask > 0)
      assert.ok(Math.abs((bid + ask) / 2e6 - f) < 0.1, `market ${id.slice(0, 10)}: mid ${(bid + ask) / 2e6} near its fair ${f}`);
  }
  cp.stop();
  await ex.close();
  return out;
}

test('a market resolved right after start-up leaves the other markets at their own fair values', async () => {
  const undisturbed = await fairAfterStart(null, 1);
  const disturbed = await fairAfterStart(0, 1);
  const ids = [...undisturbed.keys()];
  assert.equal(disturbed.size, 3, 'the resolved market has no fair value left');
  for (const id of ids.slice(1)) assert.equal(disturbed.get(id), undisturbed.get(id), `market ${id.slice(0, 10)} keeps its fair value`);
});

test("venue.local.flow picks a flow preset; other than benign, the preset sets the takers' rates", () => {
  const v = parseVenue({ local: { flow: 'calibrated' } }, 'venue');
  if (v.kind !== 'local') throw new Error('not local');
  assert.equal(v.local.flow, 'calibrated');
  assert.throws(() => parseVenue({ local: { flow: 'spicy' } }, 'venue'), /venue\.local\.flow/);
  const ex = createLocalExchange({ seed: 1, markets: 1, clock: manualClock(), expirySweepMs: 0 });
  const cal = startCounterparties(ex, { seed: 1, ...counterpartyAgents(v.local.agents), flow: v.local.flow });
  assert.equal(cal.settings.noiseRatePerSec, CALIBRATED_FIT.noiseRatePerSec);
  assert.equal(cal.settings.informedRatePerSec, CALIBRATED_FIT.informedRatePerSec);
  assert.notEqual(CALIBRATED_FIT.informedRatePerSec, 0.2, "not the agents' default");
  assert.equal(cal.settings.otherMakers, 1, 'the config still sets the other makers');
  const benign = startCounterparties(ex, { seed: 1, ...counterpartyAgents(v.local.agents), flow: 'benign' });
  assert.equal(benign.settings.noiseRatePerSec, 0.3);
  cal.stop();
  benign.stop();
  void ex.close();
});

/** How many of the engine's open orders at one step are still open, with the same id, some steps later. */
async function ordersKept(flow: 'benign' | 'calibrated'): Promise<{ before: number; after: number; kept: number }> {
  const clock = manualClock();
  const ex = createLocalExchange({ seed: 3, markets: 2, clock, expirySweepMs: 0 });
  const cp = startCounterparties(ex, { seed: 3, intervalMs: 1e9, flow });
  const engine = ex.state.engine.engine;
  const open = (): Set<number> => new Set(engine.openOrders().map((o) => o.id));
  for (let i = 0; i < 10; i++) {
    clock.advance(500);
    cp.step();
  }
  const before = open();
  // 5 s: several of calibrated's 1 s refreshes, and short enough that some levels' prices have not moved
  for (let i = 0; i < 10; i++) {
    clock.advance(500);
    cp.step();
  }
  const after = open();
  cp.stop();
  await ex.close();
  return { before: before.size, after: after.size, kept: [...before].filter((id) => after.has(id)).length };
}

test("calibrated's makers keep their resting orders across refreshes (the ids come back from the engine); benign's re-post them", async () => {
  const cal = await ordersKept('calibrated');
  assert.ok(cal.before > 0 && cal.kept > 0, `calibrated: ${cal.kept} of ${cal.before} orders kept for 5 s`);
  // and they know their orders: the levels moved away are cancelled, so the book does not pile up
  // (2 markets × 2 makers × 3 levels a side × 2 sides, a top-up or two each)
  assert.ok(cal.after <= 48, `calibrated: ${cal.after} orders resting`);
  const benign = await ordersKept('benign');
  assert.equal(benign.kept, 0, `benign: ${benign.kept} of ${benign.before} kept`);
});
