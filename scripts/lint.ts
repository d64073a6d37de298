/**
 * Project rules the compiler cannot check (run by `npm run lint` after tsc):
 * - pure layers (strategies, src/strategy, src/risk, src/engine, and the pure modules listed with them)
 *   never read the wall clock or do I/O;
 * - library code under src/ does not print with console.* (the CLI and the sim's entry may);
 * - relative imports carry an explicit .ts extension (ESM resolution at run time).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

function files(dir: string, out: string[] = []): string[] {
  for (const n of readdirSync(dir)) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) files(p, out);
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

const problems: string[] = [];
const pure = [...files('strategies'), ...files('src/strategy'), ...files('src/risk'), ...files('src/engine'), 'src/selection/score.ts', 'src/selection/choose.ts', 'src/selection/selectors.ts', 'src/kernel/run-strategy.ts'];
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
if (problems.length) {
  process.stderr.write(problems.join('\n') + `\n${problems.length} problem(s)\n`);
  process.exit(1);
}
process.stdout.write('lint: ok\n');
