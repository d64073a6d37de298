/**
 * `rank:` entries in a backtest (src/backtest/rank-recording.ts): a unit table of the terms a recording
 * gives, the warm-up and the refusals, and the real recordings of data/: the Kalshi KXINX tape (423
 * markets, trades only; the terms checked against the CSV itself) and the Polymarket capture (books).
 * Before this change a backtest whose config had only rank entries quoted no market, silently
 * (configFor skipped `rank`): the CLI test below asserts markets are quoted and fails on that code.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { kalshiRecording, polymarketRecording } from '../bench/fixtures.ts';
import { toColumns } from '../../src/backtest/recording/columns.ts';
import type { RecordedEvent, RecordingManifest } from '../../src/backtest/recording/format.ts';
import { loadBacktestConfig } from '../../src/backtest/backtest-config.ts';
import { loadReplaySource } from '../../src/backtest/replay-source.ts';
import { applyRanking, configFor } from '../../src/backtest/run-backtest.ts';
import { rankRecording, rankTime } from '../../src/backtest/rank-recording.ts';
import type { BacktestSummary } from '../../src/backtest/report-summary.ts';
import type { MarketConfig, RankSettings } from '../../src/config/types.ts';
import { ConfigError } from '../../src/model/errors.ts';
import { bookmaker } from '../support/cli.ts';
import { rankSettings } from '../support/rank-settings.ts';

const out = mkdtempSync(join(tmpdir(), 'bookmaker-rank-rec-'));
process.on('exit', () => rmSync(out, { recursive: true, force: true }));

/** config/backtest.yaml with `markets:` replaced and `backtest:` extras appended. */
function rankConfig(name: string, markets: string, backtestExtra = ''): string {
  const base = readFileSync(join(process.cwd(), 'config', 'backtest.yaml'), 'utf8');
  const text = base.replace(/^markets: all.*$/m, `markets:\n${markets}`).replace(/^ {2}seed: 1$/m, `  seed: 1\n${backtestExtra}`);
  assert.notEqual(text, base);
  const p = join(out, name);
  writeFileSync(p, text);
  return p;
}

function rankEntry(top: number, extra: Partial<MarketConfig['risk']> = {}, rank: Partial<RankSettings> = {}): MarketConfig {
  return {
    select: {
      by: 'rank',
      rank: rankSettings({ top, ...rank }),
    },
    risk: { maxNotional: 400_000_000, maxTotalNotional: 0, ...extra },
  } as unknown as MarketConfig;
}

const manifest = (ids: string[]): RecordingManifest => ({
  format: 'bookmaker-recording',
  version: 1,
  source: 'unit',
  createdAt: '2026-01-01T00:00:00Z',
  priceScale: 1_000_000,
  sizeScale: 1_000_000,
  markets: ids.map((id) => ({ id, name: id.toUpperCase(), tick: 10_000 })),
  files: [],
});

const H = 3_600_000;
const T0 = 1_767_225_600_000; // 2026-01-01T00:00:00Z

test('rankTime: after a full look-back of the recording, never before the window', () => {
  const table: [number, number, number, number][] = [
    // recording start, window start, look-back, rank time
    [T0, T0, H, T0 + H],
    [T0, T0 + 2 * H, H, T0 + 2 * H],
    [T0, T0 + H / 2, H, T0 + H],
    [T0, T0 + H, H, T0 + H],
  ];
  for (const [r, w, l, want] of table) assert.equal(rankTime(r, w, l), want, `${r} ${w} ${l}`);
});

test('the terms a recording gives: a unit table over three markets', () => {
  // a: a book 0.40/0.46 (100 + 200 shares near the touch, 50 shares 10¢ away), 3 trades in the look-back, data after T
  // b: a book 0.50/0.51, 1 trade, data after T; c: data only before T (ended); d: first row after T (unknown at T)
  const at = T0 + H;
  const ev: RecordedEvent[] = [
    {
      t: 'book',
      m: 'a',
      vts: T0,
      lts: T0,
      snap: true,
      b: [
        [400_000, 100_000_000],
        [300_000, 50_000_000],
      ],
      a: [[460_000, 200_000_000]],
    },
    { t: 'book', m: 'b', vts: T0 + 1, lts: T0 + 1, snap: true, b: [[500_000, 10_000_000]], a: [[510_000, 10_000_000]] },
    { t: 'trade', m: 'c', vts: T0 + 2, lts: T0 + 2, p: 200_000, s: 5_000_000, side: 'buy' },
    { t: 'trade', m: 'a', vts: T0 + 1000, lts: T0 + 1000, p: 460_000, s: 10_000_000, side: 'buy' },
    { t: 'trade', m: 'a', vts: T0 + 2000, lts: T0 + 2000, p: 400_000, s: 20_000_000, side: 'sell' },
    { t: 'trade', m: 'a', vts: at - 1, lts: at - 1, p: 460_000, s: 5_000_000, side: 'buy' },
    { t: 'trade', m: 'b', vts: T0 + 5000, lts: T0 + 5000, p: 510_000, s: 1_000_000, side: 'buy' },
    { t: 'trade', m: 'a', vts: at, lts: at, p: 460_000, s: 1_000_000, side: 'buy' },
    { t: 'trade', m: 'b', vts: at + 5, lts: at + 5, p: 510_000, s: 1_000_000, side: 'buy' },
    { t: 'trade', m: 'd', vts: at + 9, lts: at + 9, p: 510_000, s: 1_000_000, side: 'buy' },
  ];
  const ids = ['a', 'b', 'c', 'd'];
  const cols = toColumns(ev, ids);
  const r = rankRecording({ cols, manifest: manifest(ids), ticks: [10_000, 10_000, 10_000, 10_000], side: [] }, [rankEntry(1)], at, H, () => false);
  const rows = new Map(r.reports[0]!.rows.map((x) => [x.id, x]));
  assert.deepEqual([...rows.keys()].sort(), ['a', 'b', 'c'], 'd has no row before T: unknown at T');
  const a = rows.get('a')!;
  assert.equal(a.terms.spread, 0.6); // 6¢ / 10¢
  assert.equal(a.terms.depth, 132 / (132 + 500)); // 0.40 × 100 + 0.46 × 200 (the 0.30 level is 10¢ away)
  assert.equal(a.terms.tradeRate, 3 / 23);
  const notional = 0.46 * 10 + 0.4 * 20 + 0.46 * 5; // USDC over one hour, × 24 for the day
  assert.ok(Math.abs(a.terms.volume24h! - Math.log10(1 + notional * 24) / 5) < 1e-9);
  assert.equal(a.terms.volume, null);
  assert.equal(a.terms.volatility, 0, 'the book did not move: 17 equal mids');
  assert.equal(a.terms.fee, 0);
  assert.deepEqual(
    a.drops.map((d) => `${d.term}:${d.reason}`),
    ['volume:unsupported', 'timeToDeadline:missing', 'oracleDisagreement:missing'],
  );
  assert.equal(rows.get('b')!.terms.spread, 0.1);
  assert.equal(rows.get('b')!.terms.tradeRate, 1 / 21);
  assert.equal(rows.get('c')!.status, 'ended');
  assert.equal(rows.get('c')!.verdict, 'ineligible');
  // a scores higher (wider spread, more depth and trades): the top 1 is a
  assert.equal(a.verdict, 'selected');
  assert.equal(rows.get('b')!.verdict, 'ranked-out');
  assert.deepEqual([...r.kept.get(0)!], ['a']);

  // volatility: mids 0.40 → 0.60 halfway through the look-back; 16 steps of 225 s, one jump of 20¢
  const ev2: RecordedEvent[] = [
    { t: 'book', m: 'a', vts: T0, lts: T0, snap: true, b: [[390_000, 1_000_000]], a: [[410_000, 1_000_000]] },
    { t: 'book', m: 'a', vts: T0 + H / 2 + 1, lts: T0 + H / 2 + 1, snap: true, b: [[590_000, 1_000_000]], a: [[610_000, 1_000_000]] },
    { t: 'trade', m: 'a', vts: at + 1, lts: at + 1, p: 600_000, s: 1_000_000, side: 'buy' },
  ];
  const r2 = rankRecording({ cols: toColumns(ev2, ['a']), manifest: manifest(['a']), ticks: [10_000], side: [] }, [rankEntry(1)], at, H, () => false);
  const d: number[] = [...Array(16).keys()].map((i) => (i === 8 ? 20 : 0)); // cents, successive differences of the 17 samples
  const mean = 20 / 16;
  const sd = Math.sqrt(d.reduce((s, x) => s + (x - mean) ** 2, 0) / 16) * Math.sqrt(900 / 225); // scaled to the 15-minute step
  assert.ok(Math.abs(r2.reports[0]!.rows[0]!.terms.volatility! - sd / (sd + 2)) < 1e-12);

  // metadata and oracle before T: status, deadline and oracle disagreement; an earlier entry's market is not a candidate
  const side = [
    { t: 'market' as const, m: 'b', vts: T0, lts: T0, meta: { status: 'active', deadline: new Date(at + 7 * 86_400_000).toISOString() } },
    { t: 'oracle' as const, m: 'b', vts: T0, lts: T0, probability: 705_000, confidence: null },
    { t: 'market' as const, m: 'b', vts: at + 1, lts: at + 1, meta: { status: 'resolved' } },
  ];
  const r3 = rankRecording({ cols, manifest: manifest(ids), ticks: [10_000, 10_000, 10_000, 10_000], side }, [rankEntry(2)], at, H, (_e, id) => id === 'a');
  const b = r3.reports[0]!.rows.find((x) => x.id === 'b')!;
  assert.equal(b.status, 'active', 'the status before T, not the resolution after it');
  assert.ok(Math.abs(b.terms.timeToDeadline! - (1 - Math.exp(-1))) < 1e-12);
  assert.ok(Math.abs(b.terms.oracleDisagreement! - 0.2 / 0.2) < 1e-9); // |0.705 − 0.505| / 0.20
  assert.equal(
    r3.reports[0]!.rows.some((x) => x.id === 'a'),
    false,
  );
});

test('the top N within the capital, and configFor quotes exactly the kept markets of each rank entry', () => {
  const ev: RecordedEvent[] = [];
  const ids = ['m1', 'm2', 'm3', 'm4'];
  ids.forEach((m, i) => {
    ev.push({ t: 'book', m, vts: T0, lts: T0, snap: true, b: [[400_000, 1_000_000]], a: [[400_000 + 10_000 * (i + 1), 1_000_000]] });
    ev.push({ t: 'trade', m, vts: T0 + 2 * H, lts: T0 + 2 * H, p: 400_000, s: 1_000_000, side: 'sell' });
  });
  const cols = toColumns(ev, ids);
  // capital: 100 USDC a market, 250 in all → 2 markets although top is 3
  const entries = [rankEntry(3, { maxNotional: 100_000_000, maxTotalNotional: 250_000_000 }), rankEntry(1)];
  const r = rankRecording({ cols, manifest: manifest(ids), ticks: ids.map(() => 10_000), side: [] }, entries, T0 + H, H, () => false);
  assert.deepEqual([...r.kept.get(0)!].sort(), ['m3', 'm4'], 'the widest two');
  assert.equal(r.reports[0]!.rows.find((x) => x.id === 'm2')!.verdict, 'capital');
  assert.deepEqual([...r.kept.get(1)!], ['m2'], 'the second entry ranks what the first left');
  assert.equal(configFor(entries, 'm4', undefined, r.kept), entries[0]);
  assert.equal(configFor(entries, 'm2', undefined, r.kept), entries[1]);
  assert.equal(configFor(entries, 'm1', undefined, r.kept), null);
  assert.equal(configFor(entries, 'm4', undefined), null, 'without a ranking a rank entry quotes nothing');
});

test('refused rather than guessed: minVolume, category without metadata, a window shorter than the look-back', async () => {
  const data = await polymarketRecording();
  const src = loadReplaySource(data);
  const c1 = await loadBacktestConfig(
    rankConfig('minvol.yaml', '  - rank:\n      top: 2\n      filter: { minVolume: 1000 }\n', '  rankLookbackSeconds: 300\n'),
  );
  assert.throws(
    () => applyRanking(src, c1.bot, c1.settings),
    (e: unknown) => e instanceof ConfigError && /rank\.minVolume .*lifetime volume.*select the markets by id/.test(e.message),
  );
  const c2 = await loadBacktestConfig(rankConfig('cat.yaml', '  - rank:\n      top: 2\n      filter: { category: sports }\n', '  rankLookbackSeconds: 300\n'));
  assert.throws(
    () => applyRanking(src, c2.bot, c2.settings),
    (e: unknown) => e instanceof ConfigError && /rank\.category .*no market metadata with categories/.test(e.message),
  );
  // the capture is 20 minutes long: a one-hour look-back leaves no window
  const c3 = await loadBacktestConfig(rankConfig('long.yaml', '  - rank:\n      top: 2\n'));
  assert.throws(
    () => applyRanking(src, c3.bot, c3.settings),
    (e: unknown) => e instanceof ConfigError && /look-back of 3600 s .*window ends before that.*rankLookbackSeconds/.test(e.message),
  );
});

/** Per ticker: trades and USDC notional in [from, to), and whether it trades at or after `to`, from the CSV itself. */
function kalshiCsv(from: number, to: number): Map<string, { n: number; usdc: number; after: boolean; before: boolean }> {
  const text = gunzipSync(readFileSync(join(process.cwd(), 'data', 'kalshi-kxinx-trades', 'trades.csv.gz'))).toString('utf8');
  const out = new Map<string, { n: number; usdc: number; after: boolean; before: boolean }>();
  for (const line of text.split('\n').slice(1)) {
    if (!line) continue;
    const f = line.split(',');
    const ts = Number(f[0]);
    const t = out.get(f[2]!) ?? { n: 0, usdc: 0, after: false, before: false };
    if (ts >= to) t.after = true;
    else t.before = true;
    if (ts >= from && ts < to) {
      t.n++;
      t.usdc += (Number(f[6]) / 100) * Number(f[7]);
    }
    out.set(f[2]!, t);
  }
  return out;
}

test('the Kalshi tape (423 markets): a rank at 19:00 on 20 January keeps the 5 best of the markets trading then, terms as the CSV says', async () => {
  const data = await kalshiRecording();
  const from = Date.parse('2026-01-20T19:00:00Z');
  const src = loadReplaySource(data, { from, to: from + 2 * H });
  const cfg = await loadBacktestConfig(rankConfig('kalshi.yaml', '  - rank:\n      top: 5\n'));
  const { source, ranking } = applyRanking(src, cfg.bot, cfg.settings);
  assert.ok(ranking);
  assert.equal(ranking.at, from, 'the window starts weeks after the recording: no warm-up');
  assert.equal(ranking.movedFrom, null);
  assert.equal(source, src);
  const csv = kalshiCsv(from - H, from);
  const rep = ranking.reports[0]!;
  assert.equal(rep.rows.length, [...csv.values()].filter((t) => t.before).length, 'every market seen before T is a candidate');
  const eligible = rep.rows.filter((r) => r.verdict !== 'ineligible');
  assert.equal(eligible.length, [...csv.values()].filter((t) => t.before && t.after).length);
  assert.ok(eligible.length > 5, `${eligible.length} markets trade on both sides of T`);
  for (const r of rep.rows) {
    const t = csv.get(r.name)!;
    assert.equal(r.terms.tradeRate, t.n / (t.n + 20), r.name);
    assert.ok(Math.abs(r.terms.volume24h! - Math.min(1, Math.log10(1 + t.usdc * 24) / 5)) < 1e-9, r.name);
    assert.equal(r.terms.spread, null, 'a trade tape has no book');
    assert.equal(r.status, t.after ? 'active' : 'ended', r.name);
  }
  const kept = rep.rows.filter((r) => ranking.kept.get(0)!.has(r.id));
  assert.equal(kept.length, 5);
  const fifth = Math.min(...kept.map((r) => r.score));
  for (const r of eligible) if (!ranking.kept.get(0)!.has(r.id)) assert.ok(r.score <= fifth, `${r.name} ${r.score} beat a kept market ${fifth}`);
});

const cli = (args: string[]) => bookmaker(args);

test('bookmaker backtest with only a rank entry quotes the ranked markets (Polymarket capture) and reports them', async () => {
  const data = await polymarketRecording();
  const json = join(out, 'poly.json');
  const html = join(out, 'poly.html');
  const cfg = rankConfig('poly.yaml', '  - rank:\n      top: 3\n', '  rankLookbackSeconds: 300\n');
  const r = await cli(['backtest', '-c', cfg, '--data', data, '--to', '+10m', '--json', json, '--report', html]);
  assert.equal(r.code, 0, r.stderr);
  const s = JSON.parse(readFileSync(json, 'utf8')) as BacktestSummary;
  assert.ok(s.ranking);
  const sel = s.ranking.entries[0]!.selected;
  assert.equal(sel.length, 3);
  const quoted = s.markets
    .filter((m) => m.quoted)
    .map((m) => m.marketId.toLowerCase())
    .sort();
  assert.deepEqual(quoted, sel.map((m) => m.marketId.toLowerCase()).sort(), 'quoted = ranked in (the old code quoted none)');
  assert.ok(s.orders.placed > 0);
  // ranked 5 minutes into the capture (the look-back warm-up), and the replay starts there
  const start = Date.parse('2026-06-07T01:30:51.472Z');
  assert.equal(s.ranking.at, new Date(start + 300_000).toISOString());
  assert.equal(s.ranking.windowMovedFrom, new Date(start).toISOString());
  assert.ok(Date.parse(s.recording.from) >= start + 300_000);
  assert.deepEqual(
    s.ranking.entries[0]!.droppedTerms.map((d) => `${d.term}:${d.reason}`),
    ['volume:unsupported', 'timeToDeadline:missing', 'oracleDisagreement:missing'],
  );
  assert.match(
    r.stderr,
    /^rank: markets entry 0 ranked 6 recorded market\(s\) \(6 eligible\) at 2026-06-07T01:35:51\.472Z over a 300 s look-back .*selected 3:$/m,
  );
  assert.match(r.stderr, /terms dropped: volume \(unsupported: the venue's lifetime volume is not in a recording, 6 market\(s\)\)/);
  const page = readFileSync(html, 'utf8');
  assert.match(page, /<h2>Ranked markets<\/h2>/);
  for (const m of sel) assert.ok(page.includes(`<td>${m.name}</td><td>${m.score.toFixed(3)}</td>`), m.name);
});
