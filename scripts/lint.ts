/**
 * Project rules the compiler cannot check (run by `npm run lint` after tsc):
 * - pure layers (strategies, src/strategy, src/risk, src/engine, and the pure modules listed with them)
 *   never read the wall clock or do I/O;
 * - library code under src/ does not print with console.* (the CLI and the sim's entry may);
 * - relative imports carry an explicit .ts extension (ESM resolution at run time);
 * - imports go down the table of layers (docs/architecture.md#layers): a file imports its own layer and
 *   those below; an import that climbs fails, naming both files, unless it is one of the few listed;
 * - comments cite what a clone has: a path they name under src/, test/, docs/ (or another top-level
 *   folder of the repository) or relative to their file (./NAME.ts) exists, and a docs/ page's #heading too; code and docs cite docs/ pages, never the private design notes
 *   outside the repository; no comment carries an issue number (the commit history does), nor does a
 *   string literal of src/ or test/ (test titles, bench labels: scripts/issue-numbers.ts);
 * - src/ has no more lines over biome's line width than LONG_LINES (a cap that only goes down).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { commentOf, issueNumberProblem, issueNumbers } from './issue-numbers.ts';

function files(dir: string, out: string[] = [], name = /\.ts$/): string[] {
  for (const n of readdirSync(dir)) {
    if (n === 'node_modules') continue;
    const p = join(dir, n);
    if (statSync(p).isDirectory()) files(p, out, name);
    else if (name.test(p)) out.push(p);
  }
  return out;
}

const problems: string[] = [];
const pure = [
  ...files('strategies'),
  ...files('src/strategy'),
  ...files('src/risk'),
  ...files('src/engine'),
  'src/selection/score.ts',
  'src/selection/choose.ts',
  'src/selection/selectors.ts',
  'src/kernel/run-strategy.ts',
];
for (const f of pure) {
  const src = readFileSync(f, 'utf8');
  src.split('\n').forEach((line, i) => {
    if (/^\s*(\/\/|\*)/.test(line)) return;
    if (/\bDate\.now\(\)|\bnew Date\(\)|performance\.now\(\)/.test(line)) problems.push(`${f}:${i + 1}: pure module reads the clock`);
    if (/from ['"]node:(fs|net|http|https|child_process)['"]/.test(line)) problems.push(`${f}:${i + 1}: pure module imports I/O`);
  });
}
for (const f of files('src')) {
  if (f.startsWith(join('src', 'cli'))) continue;
  const src = readFileSync(f, 'utf8');
  src.split('\n').forEach((line, i) => {
    if (/^\s*(\/\/|\*)/.test(line)) return;
    if (/\bconsole\.(log|error|warn|info)\(/.test(line)) problems.push(`${f}:${i + 1}: console.* in library code (use the logger)`);
    const m = /from ['"](\.{1,2}\/[^'"]+)['"]/.exec(line);
    if (m && !/\.(ts|js|mjs|json)$/.test(m[1]!)) problems.push(`${f}:${i + 1}: relative import without extension: ${m[1]}`);
  });
}
// viem is about 350 modules: a static (non-type) import puts them on every start-up path (docs/performance.md#start-up)
for (const f of [...files('src'), ...files('strategies')]) {
  readFileSync(f, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (/^\s*(import|export)\s+(?!type\b).*\bfrom ['"]viem(\/[^'"]*)?['"]/.test(line) || /^\s*import ['"]viem/.test(line)) {
        problems.push(`${f}:${i + 1}: static import of viem (use src/exchange/signing, or await import('viem') where it is needed)`);
      }
    });
}
// ---- layers, bottom first (docs/architecture.md#layers) ----
const LAYERS: readonly (readonly string[])[] = [
  ['src/model'],
  ['src/core'],
  ['src/engine'],
  ['src/exchange'],
  ['src/migration'],
  ['src/sim'],
  ['src/strategy', 'strategies'],
  ['src/risk'],
  ['src/state'],
  ['src/account'],
  ['src/config'],
  ['src/orders'],
  ['src/feeds'],
  ['src/ledger'],
  ['src/kernel'],
  ['src/selection'],
  ['src/health'],
  ['src/metrics'],
  ['src/control'],
  ['src/backtest'],
  ['src/runtime'],
  ['src/chaos', 'src/doctor'],
  ['src/cli', 'src/index.ts'],
];
/** The imports allowed to climb (at most three), each with why it stays. */
const CLIMBS: Readonly<Record<string, string>> = {
  // the strategy's view carries the account's PnL share and reads a level's slot from its client id
  'src/state/market-view.ts -> src/account/account.ts': 'the view reads the account (a type and its figures)',
  'src/state/market-view.ts -> src/orders/slots.ts': 'the view parses slot ids of own orders',
  // the attribution view splits the account's PnL of a market into its components
  'src/state/edge-view.ts -> src/account/account.ts': 'the attribution reads the account (a type and its figures)',
};
if (Object.keys(CLIMBS).length > 3) problems.push(`scripts/lint.ts: ${Object.keys(CLIMBS).length} climbing imports allowed; at most 3`);
const layerOf = (f: string): number => LAYERS.findIndex((names) => names.some((n) => f === n || f.startsWith(`${n}/`)));
for (const f of [...files('src'), ...files('strategies')]) {
  const from = layerOf(f);
  if (from < 0) {
    problems.push(`${f}: in no layer of scripts/lint.ts LAYERS (add its folder where it belongs)`);
    continue;
  }
  const src = readFileSync(f, 'utf8');
  for (const m of src.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm)) {
    const target = relative('.', resolve(dirname(f), m[1]!));
    const to = layerOf(target);
    if (to <= from) continue;
    const key = `${f} -> ${target}`;
    if (!(key in CLIMBS))
      problems.push(`${f}: imports ${target}, a higher layer (${LAYERS[to]!.join(', ')} above ${LAYERS[from]!.join(', ')}; docs/architecture.md#layers)`);
  }
}

// ---- comments cite what a clone has ----
/** Paths into the repository's folders; a folder (src/, test/) as it stands, anything else only with an extension. */
const PATH_REF = /(?<![\w./@-])((?:src|test|docs|strategies|scripts|config|data|deploy|bin)\/[\w./-]*\w)/g;
/** The private notes the code once cited, by name (built so that this file does not cite them itself). */
const PRIVATE_NOTES = new RegExp(`\\b(${['design', 'protocol'].map((n) => `${n}\\.md`).join('|')})\\b`);
const codeFiles = ['src', 'strategies', 'scripts', 'test', 'bin'].flatMap((d) => files(d, [], /\.(ts|js|mjs)$/));
/** A relative path a comment names (./NAME.ts, ../DIR/NAME.md): it must exist beside the file. */
const REL_REF = /(?<![\w/.])(\.{1,2}\/[\w./-]*\.(?:ts|mjs|js|json|md))(?![\w])/g;
/** A docs page and heading a comment cites (docs/PAGE.md#heading): the heading must exist. */
const DOC_ANCHOR = /\b(docs\/[\w-]+\.md)#([\w-]+)/g;
const headingIds = new Map<string, Set<string>>();
function headingsOf(page: string): Set<string> {
  let ids = headingIds.get(page);
  if (!ids) {
    const slug = (h: string) =>
      h
        .trim()
        .toLowerCase()
        .replace(/[^\w\s-]/g, '')
        .replace(/\s/g, '-');
    ids = new Set(
      readFileSync(page, 'utf8')
        .split('\n')
        .flatMap((l) => (/^#+ /.test(l) ? [slug(l.replace(/^#+ /, ''))] : [])),
    );
    headingIds.set(page, ids);
  }
  return ids;
}
for (const f of codeFiles) {
  const text = readFileSync(f, 'utf8');
  for (const n of issueNumbers(text, { strings: /^(src|test)\//.test(f) })) problems.push(issueNumberProblem(f, n));
  text.split('\n').forEach((line, i) => {
    const c = commentOf(line);
    if (!c) return;
    for (const [, ref] of c.matchAll(PATH_REF)) {
      const path = ref!.replace(/\.+$/, '');
      if (/\b[A-Z]{2,}\b/.test(path)) continue; // a placeholder: test/bench/NAME.bench.ts
      if (!/^(src|test)\//.test(path) && !/\.\w+$/.test(path)) continue; // prose such as "config/operator"
      if (!existsSync(path)) problems.push(`${f}:${i + 1}: the comment names ${path}, which does not exist`);
    }
    for (const [, ref] of c.matchAll(REL_REF)) {
      if (/\b[A-Z]{2,}\b/.test(ref!)) continue; // a placeholder: ./NAME.ts
      // a file of the build (./NAME.js of a .ts source), or the venue's spec beside the clone that only the conformance suite reads (and the data manifest test names)
      if (/\.js$/.test(ref!) && existsSync(resolve(dirname(f), ref!.replace(/\.js$/, '.ts')))) continue;
      if (
        !existsSync(resolve(dirname(f), ref!)) &&
        !((f.startsWith('test/sim/conformance/') || f === 'test/data/manifest.test.ts') && ref!.includes('/shared/'))
      )
        problems.push(`${f}:${i + 1}: the comment names ${ref}, which does not exist`);
    }
    for (const [, page, id] of c.matchAll(DOC_ANCHOR)) {
      if (existsSync(page!) && !headingsOf(page!).has(id!)) problems.push(`${f}:${i + 1}: the comment cites ${page}#${id}: ${page} has no such heading`);
    }
    const note = PRIVATE_NOTES.exec(c);
    if (note) problems.push(`${f}:${i + 1}: the comment cites ${note[1]}, which a clone does not have (cite a docs/ page)`);
  });
}
for (const f of ['README.md', ...files('docs', [], /\.md$/)]) {
  readFileSync(f, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      const note = PRIVATE_NOTES.exec(line);
      if (note) problems.push(`${f}:${i + 1}: cites ${note[1]}, which a clone does not have (say it in the docs' own words)`);
    });
}

// ---- long lines: a cap that only goes down ----
// biome's formatter wraps code at its lineWidth (biome.json) but leaves a line it cannot break as it is: a long string,
// comment or template line. src/ had this many when the cap was set; a change may not add one (wrap the comment, split
// the string), and one that removes some lowers the cap to what is left (the ok line below says so).
const LONG_LINES = 153;
const lineWidth = (JSON.parse(readFileSync('biome.json', 'utf8')) as { formatter?: { lineWidth?: number } }).formatter?.lineWidth ?? 160;
const longLines = files('src').flatMap((f) =>
  readFileSync(f, 'utf8')
    .split('\n')
    .flatMap((l, i) => ([...l].length > lineWidth ? [`${f}:${i + 1}`] : [])),
);
if (longLines.length > LONG_LINES) {
  problems.push(
    `src/ has ${longLines.length} lines over ${lineWidth} characters (biome.json lineWidth), at most ${LONG_LINES} (scripts/lint.ts LONG_LINES): wrap the new ones. They are: ${longLines.join(' ')}`,
  );
}

if (problems.length) {
  process.stderr.write(problems.join('\n') + `\n${problems.length} problem(s)\n`);
  process.exit(1);
}
const lower =
  longLines.length < LONG_LINES ? ` (src/ has ${longLines.length} lines over ${lineWidth} characters: lower LONG_LINES in scripts/lint.ts to it)` : '';
process.stdout.write(`lint: ok${lower}\n`);
