/**
 * A strategy that throws in some markets and returns NaN prices in others, in a synthetic backtest
 * that quotes and fills elsewhere: the run says which markets and which strategy (stderr, the JSON
 * summary's warnings, and under each seed of --seeds), and no order of a faulty market reaches the
 * exchange. Before, such a run ended with no warning at all: the errors were only counted in the
 * JSON's diagnostics.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BacktestSummary } from '../../src/backtest/report-summary.ts';
import { faultWarnings } from '../../src/backtest/run-diagnostics.ts';
import { bookmaker } from '../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'bookmaker-faults-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

// by the last hex digit of the market id: 0-5 throw, 6 NaN prices, 7-f a sane two-sided quote
writeFileSync(
  join(dir, 'faulty.ts'),
  `export default {
  name: 'faulty',
  parseConfig: (raw) => raw ?? {},
  quote(view) {
    const mid = view.book?.mid;
    if (mid == null) return null;
    const d = parseInt(view.marketId.slice(-1), 16);
    if (d <= 5) throw new Error('faulty strategy threw');
    if (d === 6) return [{ side: 'bid', price: NaN, size: 10_000_000, level: 0 }, { side: 'ask', price: NaN, size: 10_000_000, level: 0 }];
    const t = view.tick;
    return [
      { side: 'bid', price: Math.floor((mid - 20_000) / t) * t, size: 10_000_000, level: 0 },
      { side: 'ask', price: Math.ceil((mid + 20_000) / t) * t, size: 10_000_000, level: 0 },
    ];
  },
};
`,
);
writeFileSync(join(dir, 'backtest.yaml'), readFileSync('config/backtest.yaml', 'utf8').replace('name: avellaneda', 'name: ./faulty.ts'));

const SYN = ['backtest', '-c', join(dir, 'backtest.yaml'), '--synthetic', '--hours', '0.05', '--markets', '4'];

test('a strategy that throws or returns NaN prices: the run names each market and the strategy, and sends none of their quotes', async () => {
  const json = join(dir, 'summary.json');
  const r = await bookmaker([...SYN, '--seed', '3', '--json', json]);
  assert.equal(r.code, 0, r.stderr);
  const s = JSON.parse(readFileSync(json, 'utf8')) as BacktestSummary;
  assert.ok(s.orders.placed > 0 && s.fills > 0, 'the sane market quotes and fills');
  const bad = s.markets.filter((m) => parseInt(m.marketId.slice(-1), 16) <= 6);
  const threw = bad.filter((m) => parseInt(m.marketId.slice(-1), 16) <= 5);
  assert.ok(threw.length > 0 && bad.length > threw.length, 'seed 3 lists markets of both faults');
  assert.match(r.stderr, new RegExp(`^warning: the strategy failed or returned malformed quotes in ${bad.length} of \\d+ quoted markets`, 'm'));
  for (const m of bad) {
    const line = new RegExp(
      `^ {2}- market ${m.name} \\(strategy \\./faulty\\.ts\\): (threw on \\d+ ticks \\(first: faulty strategy threw\\)|\\d+ malformed quotes denied \\(BAD_QUOTE)`,
      'm',
    );
    assert.match(r.stderr, line);
    assert.equal(m.fills, 0, m.name!);
    assert.equal(m.quoteUptime, 0, `${m.name}: no order of it ever rested`);
  }
  assert.equal(s.warnings.length, bad.length + 1);
  assert.equal(s.diagnostics.strategyErrors > 0, true);
});

test('--seeds names the faulty markets under each seed', async () => {
  const r = await bookmaker([...SYN, '--seeds', '3-4']);
  assert.equal(r.code, 0, r.stderr);
  const seed3 = r.stderr.indexOf('seed 3:');
  const seed4 = r.stderr.indexOf('seed 4:');
  assert.ok(seed3 >= 0 && seed4 > seed3, r.stderr);
  for (const part of [r.stderr.slice(seed3, seed4), r.stderr.slice(seed4)]) {
    assert.match(part, /^warning: the strategy failed or returned malformed quotes in \d+ of \d+ quoted markets/m);
    assert.match(part, /^ {2}- market \S+ \(strategy \.\/faulty\.ts\): /m);
  }
});

test('faultWarnings names at most ten markets one by one', () => {
  const faults = Array.from({ length: 12 }, (_, i) => ({ marketId: `m${i}`, market: `m${i}`, strategy: 's', errors: 1, firstError: 'x', badQuotes: 0 }));
  const w = faultWarnings(faults, 12);
  assert.equal(w.length, 12);
  assert.equal(w[0], 'the strategy failed or returned malformed quotes in 12 of 12 quoted markets (their quotes were pulled or denied, none was sent)');
  assert.equal(w[1], 'market m0 (strategy s): threw on 1 ticks (first: x)');
  assert.equal(w[11], 'and 2 more markets');
  assert.deepEqual(faultWarnings([], 3), []);
});
