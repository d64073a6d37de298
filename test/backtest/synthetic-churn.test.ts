/**
 * Markets of a synthetic run resolve and are replaced (src/backtest/synthetic-source.ts, the churn of
 * src/sim/market-churn.ts): a closed-loop run with a bot quoting lists exactly the markets its plan
 * declared, in order, never more than `markets` at once, each listed (pending → active) before its
 * first trade and resolved before its deadline, with no fill of the bot after its resolution, and
 * the bot trading in the markets listed later as in the first ones.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadBacktestConfig } from '../../src/backtest/backtest-config.ts';
import { runBacktest } from '../../src/backtest/run-backtest.ts';
import { liveSyntheticSource, syntheticMarketPlan, type SyntheticOptions } from '../../src/backtest/synthetic-source.ts';
import { KIND_TRADE } from '../../src/backtest/recording/columns.ts';

const OPTS: SyntheticOptions = { seed: 5, hours: 0.2, markets: 2, flow: 'toxic' };

test('closed loop with a bot quoting: the planned markets, at most `markets` at once, none traded outside its life', async () => {
  const plan = await syntheticMarketPlan(OPTS);
  assert.ok(plan.length > OPTS.markets + 2, `markets resolve and are replaced (${plan.length} listed)`);
  const cfg = await loadBacktestConfig('config/backtest.yaml');
  const source = await liveSyntheticSource(OPTS);
  const run = await runBacktest({ source, ranking: null, config: cfg.bot, settings: cfg.settings });
  assert.deepEqual(
    source.cols.markets,
    plan.map((m) => m.id),
  );
  const life = new Map<string, { listed: number; resolved: number }>();
  let active = 0;
  let most = 0;
  for (const e of source.side) {
    if (e.t !== 'market') continue;
    const status = e.meta.status;
    if (status === 'active') {
      life.set(e.m, { listed: e.lts, resolved: Infinity });
      most = Math.max(most, ++active);
    } else if (status === 'resolved') {
      const l = life.get(e.m);
      assert.ok(l, 'resolved after it was listed');
      l.resolved = e.lts;
      active--;
      assert.ok(e.meta.outcome === 1 || e.meta.outcome === 0, "the venue's outcome index");
      assert.ok(Date.parse(String(e.meta.deadline)) > e.lts, 'before its deadline');
    }
  }
  assert.deepEqual([...life.keys()], source.cols.markets, 'listed in the planned order');
  assert.equal(most, OPTS.markets);
  const c = source.cols;
  for (let r = 0; r < c.rows; r++) {
    if (c.kind[r] !== KIND_TRADE) continue;
    const l = life.get(c.markets[c.market[r]!]!)!;
    assert.ok(c.lts[r]! >= l.listed && c.lts[r]! <= l.resolved, 'trades only while listed');
  }
  assert.ok(run.collector.fills.length > 0, 'the bot traded');
  // a market listed after the start is quoted and traded too (its book reaches the exchange and the bot)
  const start = Math.min(...[...life.values()].map((l) => l.listed));
  // by the fill's market (a fill the bot's own crossing order took has no recorded row: row -1)
  const lifeOf = (f: (typeof run.collector.fills)[number]) => life.get(run.collector.markets[f.market]!)!;
  const later = run.collector.fills.filter((f) => lifeOf(f).listed > start);
  assert.ok(later.length > 0, `fills in the markets listed later (${later.length} of ${run.collector.fills.length})`);
  for (const f of run.collector.fills) {
    const l = lifeOf(f);
    assert.ok(f.at <= l.resolved, `no fill after the resolution (${f.at} > ${l.resolved})`);
  }
});
