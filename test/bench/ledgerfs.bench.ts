/**
 * ledgerfs: a large ledger at start-up, in `ledger summary`, and after pruning.
 *
 * One ledger as today's bot leaves it after months of quoting (v1 schema, no issue-22 indexes,
 * auto_vacuum off): --orders (default 1 000 000) orders over 180 days, each with a cancel sent and
 * a cancel confirmed, --fills (default 100 000) fills, an account and a market mark every minute
 * (518 400 marks), 100 start-ups. Then, per round, for the baseline tree (--base, default
 * /work/base) and this tree, alternating which goes first, each on a fresh copy of that file:
 *   - start-up: what a bot's start does with its ledger (open for writing, the account check, the
 *     catch-up's reads, the fills replay for the store's first state and the kernel's account, the
 *     risk state and the day's opening mark, the start-up record), in a child process, then its
 *     stop (close); the first open of a copy (this tree builds its indexes and its books checkpoint
 *     then, once) and the median of three later starts (every later start);
 *   - `bookmaker ledger summary --ledger FILE`: the CLI process, wall time, and the summary alone
 *     in process (median of three);
 * and once for this tree: `bookmaker ledger prune --retain-days 90` on a copy: bytes per fill
 * before and after.
 *
 *   npm run bench -- ledgerfs [--base DIR] [--orders N] [--fills N] [--rounds N] [--master FILE]
 */
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { percentile, report } from './lib.ts';

const arg = (name: string, d: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : d;
};
const BASE = resolve(arg('base', '/work/base'));
const HEAD = new URL('../../', import.meta.url).pathname.replace(/\/$/, '');
const ORDERS = Number(arg('orders', '1000000'));
const FILLS = Number(arg('fills', '100000'));
const ROUNDS = Number(arg('rounds', '3'));
const DAY = 86_400_000;
const work = mkdtempSync(join(tmpdir(), 'bm-ledgerfs-bench-'));
/** --master FILE: build the ledger there once and reuse it in later runs (it is never changed) */
const master = resolve(arg('master', join(work, 'master.sqlite')));

// ---- the ledger, as the baseline's schema writes it ----
async function build(): Promise<number> {
  const t0 = performance.now();
  const { migrate } = (await import(join(BASE, 'src/ledger/schema.ts'))) as { migrate: (db: Database.Database) => void };
  const db = new Database(master);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  migrate(db);
  const now = Date.now();
  const t00 = now - 180 * DAY;
  const span = 180 * DAY;
  const M = (i: number): string => '0x' + (i % 20).toString(16).padStart(64, '0');
  const hex = (i: number): string => '0x' + i.toString(16).padStart(64, '0');
  db.transaction(() => {
    const o = db.prepare(
      "INSERT INTO orders (nonce, market_id, slot, outcome, side, price, size, submitted_at, sends, status, answer, answered_at, ended_at) VALUES (?, ?, ?, 1, ?, 480000, 10000000, ?, 1, ?, 'created', ?, ?)",
    );
    const c = db.prepare('INSERT INTO cancels (nonce, market_id, ts, result, detail) VALUES (?, ?, ?, ?, NULL)');
    for (let i = 0; i < ORDERS; i++) {
      const ts = t00 + Math.floor((i / ORDERS) * span);
      const open = i >= ORDERS - 20;
      o.run(hex(i), M(i), `${M(i)}:bid:0`, i & 1, ts, open ? 'accepted' : 'cancelled', ts + 50, open ? null : ts + 5_000);
      if (!open) {
        c.run(hex(i), M(i), ts + 4_000, 'sent');
        c.run(hex(i), M(i), ts + 5_000, 'cancelled');
      }
    }
    const f = db.prepare(
      "INSERT INTO fills (fill_id, nonce, market_id, outcome, side, price, size, fee, ts, source, filled) VALUES (?, ?, ?, 1, ?, ?, 10000000, 0, ?, 'feed', 10000000)",
    );
    for (let i = 0; i < FILLS; i++) {
      const j = Math.floor((i / FILLS) * ORDERS);
      f.run(`${hex(j)}:10000000`, hex(j), M(j), i & 1, 470_000 + (i % 60) * 1000, t00 + Math.floor((i / FILLS) * span));
    }
    const m = db.prepare('INSERT INTO marks (ts, market_id, net, realised, unrealised, pnl) VALUES (?, ?, 0, ?, ?, ?)');
    for (let ts = t00; ts < now; ts += 60_000) {
      m.run(ts, null, '1000000', '-5000', '995000');
      m.run(ts, M(0), '1000000', '-5000', '995000');
    }
    const s = db.prepare(
      "INSERT INTO startups (ts, config_hash, config_file, venue, trader, markets, latched, caught_up) VALUES (?, 'h', 'f', 'v', '0xabc', 20, NULL, 0)",
    );
    for (let i = 0; i < 100; i++) s.run(t00 + i * (span / 100));
    db.prepare("INSERT INTO meta (key, value) VALUES ('account', '0xabc@testnet')").run();
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return performance.now() - t0;
}

const PROBE = `
const [tree, file] = process.argv.slice(2);
const { existsSync } = await import('node:fs');
const { openLedger } = await import(tree + '/src/ledger/ledger.ts');
const { replayPositions, accountFromLedger, ledgerSummary } = await import(tree + '/src/ledger/books.ts');
// a tree with the books checkpoint (books-checkpoint.ts) starts from it, as its bot does
const cp = existsSync(tree + '/src/ledger/books-checkpoint.ts') ? await import(tree + '/src/ledger/books-checkpoint.ts') : null;
const clock = { now: () => Date.now(), setTimeout: (f, ms) => { const h = setTimeout(f, ms); return () => clearTimeout(h); } };
function start() {
  const t0 = performance.now();
  const l = openLedger({ path: file, clock });
  const tOpen = performance.now() - t0;
  l.meta('account');
  l.isFresh();
  l.lastStartup();
  const unended = l.unendedOrders();
  // the catch-up's filled shares: of the orders it read (here the open ones), or of every order
  if (typeof l.filledFor === 'function') l.filledFor(unended.map((u) => u.nonce));
  else l.filledByNonce();
  // the store's first state and the kernel's account (BotLedger.initialState and books)
  const t1 = performance.now();
  if (cp) accountFromLedger(l, { replayed: cp.replayBooks(l, { save: true }) });
  else {
    replayPositions(l);
    accountFromLedger(l);
  }
  const tReplay = performance.now() - t1;
  l.risk();
  l.db.prepare('SELECT pnl FROM marks WHERE market_id IS NULL AND ts < ? ORDER BY id DESC LIMIT 1').get(Math.floor(Date.now() / 86400000) * 86400000);
  l.startup({ configHash: 'h', configFile: 'f', venue: 'v', trader: '0xabc', markets: 20, latched: null }, 0);
  const total = performance.now() - t0;
  // the stop (BotLedger.close)
  if (cp) cp.saveBooksCheckpoint(l);
  l.close();
  return { open: tOpen, replay: tReplay, total };
}
const first = start();
// later starts: the median of three (the file is in the page cache by now, as on a restart)
const seconds = [start(), start(), start()].sort((a, b) => a.total - b.total);
const second = seconds[1];
const sums = [];
for (let i = 0; i < 3; i++) {
  const t1 = performance.now();
  const r = openLedger({ path: file, clock, mustExist: true, readonly: true });
  ledgerSummary(r);
  r.close();
  sums.push(performance.now() - t1);
}
const summary = sums.sort((a, b) => a - b)[1];
process.stdout.write(JSON.stringify({ first, second, summary }) + '\\n');
`;
const probeFile = join(work, 'probe.mjs');
writeFileSync(probeFile, PROBE);

interface Probe {
  first: { open: number; replay: number; total: number };
  second: { open: number; replay: number; total: number };
  summary: number;
}

function probe(tree: string, file: string): Probe {
  const r = spawnSync(process.execPath, ['--import', 'tsx', probeFile, tree, file], { cwd: tree, encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`probe in ${tree} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Probe;
}

function cliMs(tree: string, args: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: tree, encoding: 'utf8', maxBuffer: 1 << 24 });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`bookmaker ${args.join(' ')} in ${tree}: exit ${r.status}: ${r.stderr}`);
  return ms;
}

const onDisk = (p: string): number => {
  let n = 0;
  for (const f of [p, `${p}-wal`]) {
    try {
      n += statSync(f).size;
    } catch {
      // none
    }
  }
  return n;
};

const buildMs = existsSync(master) ? 0 : await build();
const masterBytes = onDisk(master);
process.stdout.write(`built ${ORDERS} orders, ${FILLS} fills: ${(masterBytes / 2 ** 20).toFixed(1)} MiB in ${(buildMs / 1000).toFixed(1)} s\n`);

type Side = 'base' | 'head';
const res: Record<
  Side,
  { first: number[]; second: number[]; secondReplay: number[]; firstOpen: number[]; summary: number[]; cli: number[]; cliNoop: number[] }
> = {
  base: { first: [], second: [], secondReplay: [], firstOpen: [], summary: [], cli: [], cliNoop: [] },
  head: { first: [], second: [], secondReplay: [], firstOpen: [], summary: [], cli: [], cliNoop: [] },
};
for (let round = 0; round < ROUNDS; round++) {
  const order: Side[] = round % 2 === 0 ? ['base', 'head'] : ['head', 'base'];
  for (const side of order) {
    const tree = side === 'base' ? BASE : HEAD;
    const copy = join(work, `${side}-${round}.sqlite`);
    copyFileSync(master, copy);
    const p = probe(tree, copy);
    res[side].first.push(p.first.total);
    res[side].firstOpen.push(p.first.open);
    res[side].second.push(p.second.total);
    res[side].secondReplay.push(p.second.replay);
    res[side].summary.push(p.summary);
    res[side].cli.push(cliMs(tree, ['ledger', 'summary', '--ledger', copy]));
    res[side].cliNoop.push(cliMs(tree, ['ledger', '--help']));
    for (const f of [copy, `${copy}-wal`, `${copy}-shm`, `${copy}.lock`, `${copy}.latch`]) rmSync(f, { force: true });
  }
}

// ---- prune (this tree) ----
const pcopy = join(work, 'prune.sqlite');
copyFileSync(master, pcopy);
const pruneMs = cliMs(HEAD, ['ledger', 'prune', '--ledger', pcopy, '--retain-days', '90']);
const prunedBytes = onDisk(pcopy);
const after = probe(HEAD, pcopy);

const med = (xs: number[]): number =>
  percentile(
    [...xs].sort((a, b) => a - b),
    0.5,
  );
const ms = (x: number): string => `${x.toFixed(0)} ms`;
const ratio = (s: keyof (typeof res)['base']): number => med(res.head[s]) / med(res.base[s]);
report(
  [
    ['ledger', `${ORDERS} orders, ${FILLS} fills, ${(masterBytes / 2 ** 20).toFixed(1)} MiB`],
    [
      'start-up, first open (base / head)',
      `${ms(med(res.base.first))} / ${ms(med(res.head.first))} (head builds its indexes: open ${ms(med(res.head.firstOpen))})`,
    ],
    ['start-up, later opens (base / head)', `${ms(med(res.base.second))} / ${ms(med(res.head.second))}  ratio ${ratio('second').toFixed(3)}`],
    ['  of which the fills replay (base / head)', `${ms(med(res.base.secondReplay))} / ${ms(med(res.head.secondReplay))}`],
    ['ledger summary in process (base / head)', `${ms(med(res.base.summary))} / ${ms(med(res.head.summary))}  ratio ${ratio('summary').toFixed(3)}`],
    [
      'ledger summary CLI wall (base / head)',
      `${ms(med(res.base.cli))} / ${ms(med(res.head.cli))} (CLI start alone: ${ms(med(res.base.cliNoop))} / ${ms(med(res.head.cliNoop))})`,
    ],
    ['bytes per fill before prune', `${(masterBytes / FILLS).toFixed(0)}`],
    ['prune --retain-days 90', `${ms(pruneMs)} (with the one VACUUM of a ledger from before)`],
    ['bytes per fill after prune', `${(prunedBytes / FILLS).toFixed(0)}`],
    ['start-up after prune (head)', `${ms(after.second.total)}; summary ${ms(after.summary)}`],
  ],
  {
    name: 'ledgerfs',
    unit: 'ms',
    value: med(res.head.second),
    baseline: BASE,
    baselineValue: med(res.base.second),
    ratio: ratio('second'),
    startupFirstMs: { base: med(res.base.first), head: med(res.head.first) },
    startupMs: { base: med(res.base.second), head: med(res.head.second) },
    summaryMs: { base: med(res.base.summary), head: med(res.head.summary) },
    summaryCliMs: { base: med(res.base.cli), head: med(res.head.cli) },
    bytesPerFill: { before: masterBytes / FILLS, afterPrune: prunedBytes / FILLS },
    pruneMs,
    rounds: ROUNDS,
  },
);
rmSync(work, { recursive: true, force: true });
