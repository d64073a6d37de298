/**
 * `bookmaker ledger check|backup|prune`, as an operator runs them (the CLI in a child
 * process): a backup of a live WAL ledger holds what is still in the WAL (a copy of the .sqlite file
 * does not); check finds a damaged page (exit 1) and says how to recover; prune removes old orders,
 * cancels and marks only, returns the space, and is refused while a bot writes the ledger.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { systemClock } from '../../src/core/clock.ts';
import { openLedger, type Ledger } from '../../src/ledger/ledger.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { cliArgs } from '../support/cli.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const M = ('0x' + '11'.repeat(32)) as Bytes32;
const DAY = 86_400_000;

function bookmaker(args: string[]): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, cliArgs(args), { cwd: ROOT, encoding: 'utf8' });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** Runs `fn` in a fresh temporary folder, `file` the ledger path there (not created yet), then removes the folder. */
async function inTmp(fn: (dir: string, file: string) => unknown): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bookmaker-ledger-admin-'));
  try {
    await fn(dir, join(dir, 'l.sqlite'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const count = (file: string, sql: string): number => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare(sql).get() as { n: number }).n;
  } finally {
    db.close();
  }
};

/** n orders (each sent, cancelled, marked) at `ts`, and a fill every 10th. */
function history(l: Ledger, from: number, n: number, ts: number): void {
  for (let i = from; i < from + n; i++) {
    const nonce = ('0x' + i.toString(16).padStart(64, '0')) as Bytes32;
    l.orderSubmitted({ nonce, marketId: M, slot: 's', outcomeIndex: 1, side: 0, price: 500_000, size: 1_000_000, ts }, false);
    l.cancel(nonce, M, 'sent', null, ts);
    l.orderEnded(nonce, 'cancelled', ts);
    l.mark(ts, M, 1, 1n, 1n);
    l.mark(ts, null, 0, 1n, 1n);
    if (i % 10 === 0) l.fill({ fillId: `f${i}`, nonce, marketId: M, outcomeIndex: 1, side: 0, price: 500_000, size: 1_000_000, fee: 0, ts, source: 'feed' });
  }
  l.flush();
}

test('backup of a live ledger killed with SIGKILL holds what is still in the WAL; a copy of the .sqlite does not', () =>
  inTmp(async (dir, file) => {
    // a writer that dies with its last records in the WAL (no checkpoint)
    const script = `import { openLedger } from ${JSON.stringify(new URL('../../src/ledger/ledger.ts', import.meta.url).href)};
const l = openLedger({ path: ${JSON.stringify(file)}, clock: { now: () => Date.now(), setTimeout: (f, ms) => { const h = setTimeout(f, ms); return () => clearTimeout(h); } }, checkpointMs: 1e12 });
for (let i = 0; i < 500; i++) l.fill({ fillId: 'f' + i, nonce: null, marketId: '${M}', outcomeIndex: 1, side: 0, price: 500000, size: 1000000, fee: 0, ts: Date.now(), source: 'feed' });
l.flush();
process.kill(process.pid, 'SIGKILL');`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, stdio: 'ignore' });
    await new Promise((r) => child.on('exit', r));
    assert.ok(statSync(`${file}-wal`).size > 0, 'the records are in the WAL');
    const naive = join(dir, 'naive.sqlite');
    copyFileSync(file, naive);
    assert.ok(count(naive, 'SELECT COUNT(*) AS n FROM fills') < 500, 'a copy of the .sqlite alone misses the WAL');
    const out = join(dir, 'backup.sqlite');
    const r = bookmaker(['ledger', 'backup', '--ledger', file, '--out', out]);
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, /integrity ok/);
    assert.equal(count(out, 'SELECT COUNT(*) AS n FROM fills'), 500);
    assert.equal(statSync(out).mode & 0o777, 0o600);
    assert.equal(existsSync(`${out}-wal`), false, 'one self-contained file');
    assert.equal(bookmaker(['ledger', 'backup', '--ledger', file, '--out', out]).status, 2, 'never overwrites');
  }));

test('check: exit 0 on a sound ledger; exit 1 on a damaged page, naming the recovery', () =>
  inTmp((dir, file) => {
    const l = openLedger({ path: file, clock: systemClock });
    history(l, 0, 3_000, Date.now());
    l.close();
    const ok = bookmaker(['ledger', 'check', '--ledger', file]);
    assert.equal(ok.status, 0, ok.out);
    assert.match(ok.out, /: ok \(integrity_check of \d+ tables/);
    assert.match(ok.out, /writer: none/);
    assert.match(ok.out, /latch file: clear; halt: none; paused markets: none/);
    // the operator's halt and pauses the latch file holds are shown too
    const h = openLedger({ path: file, clock: systemClock });
    h.operatorAction('halt', null, 'incident 3', 'admin', 'halted');
    h.operatorAction('pause', M, null, 'admin', 'paused');
    h.close();
    const held = bookmaker(['ledger', 'check', '--ledger', file]);
    assert.match(held.out, new RegExp(`latch file: clear; halt: HALTED incident 3 \\(admin\\); paused markets: ${M}`));
    const bad = join(dir, 'damaged.sqlite');
    copyFileSync(file, bad);
    const db = new Database(bad, { readonly: true });
    const root = (db.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'orders_ts'").get() as { rootpage: number }).rootpage;
    const ps = db.pragma('page_size', { simple: true }) as number;
    db.close();
    const fd = openSync(bad, 'r+');
    writeSync(fd, Buffer.alloc(300, 0x5a), 0, 300, (root - 1) * ps + 20);
    closeSync(fd);
    const r = bookmaker(['ledger', 'check', '--ledger', bad]);
    assert.equal(r.status, 1, r.out);
    assert.match(r.out, /DAMAGED/);
    assert.match(r.out, /restore the last backup/);
  }));

test('prune: old orders, cancels and marks go, fills and risk records stay, unended orders and the last marks stay; refused while a bot writes', () =>
  inTmp((dir, file) => {
    const now = Date.now();
    const l = openLedger({ path: file, clock: systemClock });
    history(l, 0, 2_000, now - 200 * DAY);
    // an old order that never ended (still open at the venue?): kept
    l.orderSubmitted(
      { nonce: ('0x' + 'ff'.repeat(32)) as Bytes32, marketId: M, slot: 's', outcomeIndex: 1, side: 0, price: 1, size: 1, ts: now - 200 * DAY },
      false,
    );
    history(l, 10_000, 500, now - DAY);
    l.riskEvent(now - 200 * DAY, null, 'denials', 'X', 1, null);
    l.operatorAction('halt', null, 'r', 'cli', 'halted');
    l.flush();
    const held = bookmaker(['ledger', 'prune', '--ledger', file]);
    assert.equal(held.status, 2, held.out);
    assert.match(held.out, new RegExp(`held by pid ${process.pid} on `));
    l.close();
    const before = statSync(file).size;
    const r = bookmaker(['ledger', 'prune', '--ledger', file, '--json']);
    assert.equal(r.status, 0, r.out);
    const res = JSON.parse(r.out) as { removed: { orders: number; cancels: number; marks: number }; bytesAfter: number };
    assert.deepEqual(res.removed, { orders: 2_000, cancels: 2_000, marks: 4_000 });
    assert.equal(count(file, 'SELECT COUNT(*) AS n FROM orders'), 501);
    assert.equal(count(file, 'SELECT COUNT(*) AS n FROM fills'), 250, 'every fill kept');
    assert.equal(count(file, 'SELECT COUNT(*) AS n FROM risk_events'), 1);
    assert.equal(count(file, 'SELECT COUNT(*) AS n FROM operator_actions'), 1);
    assert.equal(count(file, 'SELECT COUNT(*) AS n FROM cancels'), 500);
    assert.ok(res.bytesAfter < before, `space returned: ${before} -> ${res.bytesAfter}`);
    const again = bookmaker(['ledger', 'prune', '--ledger', file, '--retain-days', '0.5', '--json']);
    assert.equal(again.status, 0, again.out);
    // the last mark of the market and of the account survive any prune
    assert.equal(count(file, 'SELECT COUNT(*) AS n FROM marks'), 2);
  }));

test('ledger --market takes the id in any case and finds the rows kept lower-case; a malformed id is a clear error', () =>
  inTmp((dir, file) => {
    const m = ('0x' + 'ab'.repeat(32)) as Bytes32;
    const l = openLedger({ path: file, clock: systemClock });
    l.fill({
      fillId: 'f1',
      nonce: ('0x' + '01'.repeat(32)) as Bytes32,
      marketId: m,
      outcomeIndex: 1,
      side: 0,
      price: 500_000,
      size: 1_000_000,
      fee: 0,
      ts: 1,
      source: 'feed',
    });
    l.fill({
      fillId: 'f2',
      nonce: ('0x' + '02'.repeat(32)) as Bytes32,
      marketId: M,
      outcomeIndex: 1,
      side: 0,
      price: 400_000,
      size: 1_000_000,
      fee: 0,
      ts: 2,
      source: 'feed',
    });
    l.close();
    const r = bookmaker(['ledger', 'fills', '--ledger', file, '--market', '0x' + 'aB'.repeat(32), '--json']);
    assert.equal(r.status, 0, r.out);
    const rows = JSON.parse(r.out) as { marketId: string }[];
    assert.deepEqual(
      rows.map((x) => x.marketId),
      [m],
    );
    const bad = bookmaker(['ledger', 'fills', '--ledger', file, '--market', '0xab']);
    assert.equal(bad.status, 2, bad.out);
    assert.match(bad.out, /--market: expected a 0x market id \(64 hex digits\)/);
  }));
