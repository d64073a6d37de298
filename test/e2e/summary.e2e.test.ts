/**
 * The summary and the end-of-run report, from the CLI over real HTTP:
 * - live: the summary's orders equal the orders open at the venue, each market has a state, every
 *   line fits 120 columns; --report-json writes the report at stop;
 * - --paper: paper fills show in the summary and in the report.
 * On the code before the health model (1d73146) these fail: the summary was one unbounded line with no state, paper
 * fills showed "fills 0", and --report-json was an unknown option.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { RunReport } from '../../src/runtime/run-report.ts';
import { BOT_KEY, cli, openOrders, place, exchangeForFile, setBook, waitFor, withTimeout, yaml, type Harness } from './harness.ts';

let h: Harness;
let dir: string;
let file: string;

exchangeForFile({ book: [460_000, 540_000] }, (x, d) => {
  h = x;
  dir = d;
  file = join(dir, 'bot.yaml');
  writeFileSync(file, yaml(h));
});

/**
 * The last complete summary block of the output: its header line and the market lines under it, all ended by their
 * newline (a block the child is still writing, or the pipe has carried in part, is passed over).
 */
function lastSummary(out: string): string[] {
  const lines = out.split('\n');
  const n = h.markets.length;
  // lines.at(-1) is the unended rest of the output: a complete block ends before it
  const i = lines.map((l, k) => (/\| orders \d+ fills \d+ pnl/.test(l) && k + n < lines.length - 1 ? k : -1)).filter((k) => k >= 0);
  const start = i.at(-1);
  if (start === undefined) return [];
  return lines.slice(start, start + 1 + n);
}

/** Deadlines that only stop a hang: a busy machine starts the bot and the venue slowly. */
const HANG_MS = 120_000;

test('live: the summary counts what the venue holds, names a state per market, fits 120 columns; --report-json', { timeout: 5 * HANG_MS }, async () => {
  const report = join(dir, 'live-report.json');
  const c = cli(['run', '-c', file, '--api-key', BOT_KEY, '--metrics-port', '0', '--log-level', 'warn', '--summary-seconds', '0.5', '--report-json', report], {
    BOOKMAKER_PRIVATE_KEY: h.bot.privateKey,
  });
  try {
    await waitFor('the bot quotes at the venue', async () => (await openOrders(h.bot)).length === 4, HANG_MS);
    // the summary that shows the 4 orders with both markets quoting (a busy machine may print one that counts the
    // orders before the second market's state has caught up)
    await waitFor(
      'a summary that shows the 4 orders, both markets quoting',
      () => /quoting 2\/2 \| orders 4 fills 0/.test(lastSummary(c.out())[0] ?? ''),
      HANG_MS,
    );
    const block = lastSummary(c.out());
    assert.equal(block.length, 1 + h.markets.length, c.out());
    for (const l of block) assert.ok(l.length <= 120, `${l.length} columns: ${l}`);
    assert.match(block[0]!, /quoting 2\/2/);
    // no fill yet: no toxicity, a zero attribution (the regime is whatever the book did)
    for (const l of block.slice(1)) assert.match(l, /ord 2 fills 0 .* quoting \| [a-z-]+ tox -¢ sifr \+0\.00\/\+0\.00\/\+0\.00\/\+0\.00$/);
    c.proc.kill('SIGTERM');
    assert.equal(await withTimeout(c.exit, HANG_MS, 'no exit after SIGTERM'), 0, c.out());
    assert.match(c.out(), /run report: [\d.]+ s, stopped by SIGTERM, exit 0/);
    const r = JSON.parse(readFileSync(report, 'utf8')) as RunReport;
    assert.equal(r.exitCode, 0);
    assert.equal(r.markets.length, 2);
    for (const m of r.markets) {
      assert.ok(m.quotingShare > 0 && m.quotingShare <= 1, `share of time quoting ${m.quotingShare}`);
      assert.ok(m.notQuoting.every((n) => n.state !== 'quoting'));
      assert.match(m.realisedPnlUsdc, /^-?\d+\.\d{6}$/);
    }
  } finally {
    c.proc.kill('SIGKILL');
  }
});

test('--paper: paper fills show in the summary and in the report', { timeout: 5 * HANG_MS }, async () => {
  const report = join(dir, 'paper-report.json');
  const m = h.markets[0]!;
  const c = cli(['run', '-c', file, '--paper', '--metrics-port', '0', '--log-level', 'warn', '--summary-seconds', '0.5', '--report-json', report], {});
  try {
    await waitFor('paper quotes in the summary', () => /\| orders 4 fills 0/.test(lastSummary(c.out())[0] ?? ''), HANG_MS);
    assert.equal((await openOrders(h.bot)).length, 0, 'nothing reached the venue');
    // a public trade at 0.46 prints through the paper bid (0.48 at 2¢ from the 0.50 mid): a paper fill
    await place(h.bot, { marketId: m, outcomeIndex: 1, side: 1, price: 460_000, shares: 3, timeInForce: 1, inventoryMode: 2 });
    await waitFor('the paper fill in the summary', () => /\| orders \d+ fills [1-9]/.test(lastSummary(c.out())[0] ?? ''), HANG_MS);
    c.proc.kill('SIGTERM');
    assert.equal(await withTimeout(c.exit, HANG_MS, 'no exit after SIGTERM'), 0, c.out());
    const r = JSON.parse(readFileSync(report, 'utf8')) as RunReport;
    assert.equal(r.paper, true);
    const row = r.markets.find((x) => x.marketId.toLowerCase() === m.toLowerCase())!;
    assert.ok(row.fills >= 1, JSON.stringify(row));
    assert.ok(Number(row.volumeShares) > 0);
    assert.ok(r.totals.fills >= 1);
  } finally {
    c.proc.kill('SIGKILL');
    await setBook(h, m, 460_000, 540_000);
  }
});
