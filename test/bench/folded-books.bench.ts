/**
 * folded-books: the bytes a market the bot is done with keeps in the books (src/account/account.ts), what
 * rotation-soak's second half grows by. Markets of `--fills` fills each (fill ids in the feeds' form, each
 * its own string), three kinds:
 * - folded: a buy and a sale in turn (nothing held at the end), marked, released: its folded book, among
 *   the newest FOLDED_KEPT = 256 an account (~2 hours at a market every 30 s);
 * - unclaimed: buys and a sale every fourth (it ends holding), released, resolved: its book waits for the
 *   claim (compactIfTerminal), which the local exchange never makes;
 * - checkpoint: as folded, not released but folded by foldKept with one id: the books checkpoint's copy of a
 *   market idle for an hour (src/ledger/books-checkpoint.ts foldIdle), kept for every market traded.
 * The figure is (live heap after full collections, without machine code, typed arrays' stores counted −
 * the same before) / markets, every folded book within the window (none dropped to its remainder). Bytes,
 * not a timing.
 *
 *   npm run bench -- folded-books [--fills 4,32] [--base DIR]
 *
 * `--base DIR`: the same in a child process on another checkout's Account (e.g. /work/base), with the ratio.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { getHeapSpaceStatistics } from 'node:v8';
import { report } from './lib.ts';
import type { Bytes32 } from '../../src/model/order.ts';

const argOf = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const FILLS = (argOf('fills') ?? '4,32').split(',').map(Number);
if (FILLS.some((n) => !Number.isInteger(n) || n < 2 || n % 2 !== 0)) throw new Error('--fills: even counts, comma-separated: 4,32');
const here = resolve(new URL('../..', import.meta.url).pathname);
const child = argOf('child');
const KINDS = ['folded', 'unclaimed', 'checkpoint'] as const;

/** markets folded per reading: within the window (FOLDED_KEPT = 256), after 8 warm-up markets */
const MARKETS = 240;
const WARM = 8;

if (child !== undefined) {
  // the measuring side: one tree's Account, in a process with the collector exposed
  const gc = globalThis.gc as () => void;
  // as test/support/retained-heap.ts: machine code is not data the books retain (the optimiser installs some as it runs)
  const heap = (): number => {
    for (let i = 0; i < 3; i++) gc();
    const m = process.memoryUsage();
    let code = 0;
    for (const s of getHeapSpaceStatistics()) if (s.space_name === 'code_space' || s.space_name === 'code_large_object_space') code += s.space_used_size;
    return m.heapUsed - code + m.arrayBuffers;
  };
  const { Account } = (await import(pathToFileURL(resolve(child, 'src/account/account.ts')).href)) as typeof import('../../src/account/account.ts');
  const hex = (n: number) => n.toString(16).padStart(64, '0');
  const out: Record<string, number> = {};
  for (const kind of KINDS)
    for (const fills of FILLS) {
      const a = new Account();
      let nonce = 1;
      const rotate = (from: number, to: number): void => {
        for (let m = from; m < to; m++) {
          const marketId = `0x${hex(1_000_000 + m)}` as Bytes32;
          const t = 1_764_000_000_000 + m * 30_000;
          for (let k = 0; k < fills; k++)
            a.applyFill({
              // a new string a fill, as a feed's JSON gives it
              fillId: `0x${hex(nonce++)}:${1_000_000 * (1 + (k % 3))}`,
              marketId: Buffer.from(marketId, 'latin1').toString('latin1') as Bytes32,
              outcomeIndex: 1,
              side: (kind === 'unclaimed' ? (k % 4 === 3 ? 1 : 0) : k % 2) as 0 | 1,
              price: 400_000 + (k % 7) * 10_000 + (m % 3),
              size: 1_000_000,
              fee: 0,
              feeSource: 'model',
              ts: t + k * 1_000,
              origin: 'own',
            });
          if (kind === 'checkpoint') {
            a.foldKept(marketId, 1);
            continue;
          }
          a.mark(marketId, 1_000_000, t + 300_000);
          a.release(marketId);
          if (kind === 'unclaimed') a.resolve(marketId, 1_000_000, t + 330_000);
        }
      };
      rotate(0, WARM);
      const before = heap();
      rotate(WARM, WARM + MARKETS);
      const after = heap();
      const inBooks = kind === 'folded' ? 0 : WARM + MARKETS;
      if (a.marketIds().length !== inBooks || a.figures().fills !== (WARM + MARKETS) * fills)
        throw new Error(`the markets did not ${kind === 'unclaimed' ? 'wait' : 'fold'}`);
      out[`${kind} ${fills}`] = (after - before) / MARKETS;
      // (kept referenced until after the reading)
      if (a.keptMarket(`0x${hex(1_000_000 + WARM)}` as Bytes32) === null) throw new Error('the folded book is not kept');
    }
  process.stdout.write(JSON.stringify(out) + '\n');
  process.exit(0);
}

function measure(tree: string): Record<string, number> {
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url), '--child', tree, '--fills', FILLS.join(',')], {
    cwd: tree,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`folded-books on ${tree}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as Record<string, number>;
}

const base = argOf('base');
const mine = measure(here);
const theirs = base !== undefined ? measure(resolve(base)) : null;
const rows: [string, string | number][] = [['markets a reading', MARKETS]];
for (const kind of KINDS)
  for (const f of FILLS) {
    const k = `${kind} ${f}`;
    rows.push([`bytes a market, ${kind}, ${f} fills`, Math.round(mine[k]!)]);
    if (theirs) rows.push([`  base (${base})`, `${Math.round(theirs[k]!)} (${(theirs[k]! / mine[k]!).toFixed(2)}×)`]);
  }
const k = `folded ${FILLS[0]!}`;
report(rows, {
  name: `folded-books (folded, ${FILLS[0]!} fills a market)`,
  unit: 'bytes a folded market',
  value: Math.round(mine[k]!),
  ...(theirs ? { baseline: base, baselineValue: Math.round(theirs[k]!), ratio: theirs[k]! / mine[k]! } : {}),
});
