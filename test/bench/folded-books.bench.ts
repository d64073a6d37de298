/**
 * folded-books: the bytes a released market's folded book keeps in the account (src/account/account.ts,
 * the newest FOLDED_KEPT = 256 an account), what rotation-soak's second half grows by while that window
 * fills (a market every 30 s: ~2 hours). Markets of `--fills` fills each (a buy and a sale in turn, so
 * nothing is held at the end; fill ids in the feeds' form, each its own string), marked, released: each
 * folds. The figure is (live heap after full collections, without machine code, typed arrays' stores
 * counted − the same before)
 * / markets, every fold within the window (no book dropped to its remainder). Bytes, not a timing.
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
            side: (k % 2) as 0 | 1,
            price: 400_000 + (k % 7) * 10_000 + (m % 3),
            size: 1_000_000,
            fee: 0,
            feeSource: 'model',
            ts: t + k * 1_000,
            origin: 'own',
          });
        a.mark(marketId, 1_000_000, t + 300_000);
        a.release(marketId);
      }
    };
    rotate(0, WARM);
    const before = heap();
    rotate(WARM, WARM + MARKETS);
    const after = heap();
    if (a.marketIds().length !== 0 || a.figures().fills !== (WARM + MARKETS) * fills) throw new Error('the markets did not fold');
    out[String(fills)] = (after - before) / MARKETS;
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
const rows: [string, string | number][] = [['markets folded a reading', MARKETS]];
for (const f of FILLS) {
  rows.push([`bytes a folded market, ${f} fills`, Math.round(mine[f]!)]);
  if (theirs) rows.push([`  base (${base})`, `${Math.round(theirs[f]!)} (${(theirs[f]! / mine[f]!).toFixed(2)}×)`]);
}
const f = FILLS[0]!;
report(rows, {
  name: `folded-books (${f} fills a market)`,
  unit: 'bytes a folded market',
  value: Math.round(mine[f]!),
  ...(theirs ? { baseline: base, baselineValue: Math.round(theirs[f]!), ratio: theirs[f]! / mine[f]! } : {}),
});
