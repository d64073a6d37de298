/**
 * test/bench/BENCHMARKS.md is the one source of benchmark figures: one table (benchmark | command | figure |
 * baseline | ratio | date), one short line per cell, every `npm run bench -- NAME` it names has its bench
 * file; and no page of README.md or docs/ keeps a second benchmark table.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const MAX_CELL = 120;

/** The rows of the table whose header starts `| benchmark |`, as trimmed cells. */
export function benchmarkRows(md: string): string[][] {
  const lines = md.split('\n');
  const at = lines.findIndex((l) => /^\|\s*benchmark\s*\|/.test(l));
  if (at < 0) return [];
  const rows: string[][] = [];
  for (const l of lines.slice(at + 2)) {
    if (!l.startsWith('|')) break;
    rows.push(
      l
        .slice(1, l.endsWith('|') ? -1 : undefined)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim()),
    );
  }
  return rows;
}

/** What is wrong with the table (empty when every row has six short, one-line cells and a date). */
export function tableProblems(md: string): string[] {
  const problems: string[] = [];
  const header = md.split('\n').find((l) => /^\|\s*benchmark\s*\|/.test(l));
  if (!header || !/^\|\s*benchmark\s*\|\s*command\s*\|\s*figure\s*\|\s*baseline\s*\|\s*ratio\s*\|\s*date\s*\|$/.test(header))
    problems.push('header is not | benchmark | command | figure | baseline | ratio | date |');
  for (const r of benchmarkRows(md)) {
    if (r.length !== 6) problems.push(`${r[0]}: ${r.length} cells, not 6`);
    for (const c of r)
      if (c.length > MAX_CELL || /<br|\n/.test(c)) problems.push(`${r[0]}: a cell longer than one short line (${c.length} > ${MAX_CELL}): ${c.slice(0, 60)}…`);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(r[5] ?? '')) problems.push(`${r[0]}: date "${r[5]}" is not YYYY-MM-DD`);
  }
  return problems;
}

const BENCHMARKS = readFileSync(join(REPO, 'test', 'bench', 'BENCHMARKS.md'), 'utf8');

test('the table check finds a long cell, a missing cell and a bad date', () => {
  const good = '| benchmark | command | figure | baseline | ratio | date |\n|---|---|---|---|---|---|\n| a | `x` | 1 | 2 | 0.5× | 2026-11-28 |\n';
  assert.deepEqual(tableProblems(good), []);
  const bad = good + `| b | \`y\` | ${'z'.repeat(MAX_CELL + 1)} | 2 | 1× | 2026-11-28 |\n| c | \`y\` | 1 | 2 | 28 Nov |\n`;
  const p = tableProblems(bad);
  assert.equal(p.length, 3, p.join('\n'));
});

test('BENCHMARKS.md: one table, one short line per cell', () => {
  assert.ok(benchmarkRows(BENCHMARKS).length >= 20, 'the table has its rows');
  assert.deepEqual(tableProblems(BENCHMARKS), []);
});

test('every `npm run bench -- NAME` of BENCHMARKS.md has its test/bench/NAME.bench.ts', () => {
  const names = [...BENCHMARKS.matchAll(/npm run bench -- ([a-z0-9-]+)/g)].map((m) => m[1]!);
  assert.ok(names.length > 0);
  for (const n of new Set(names)) assert.ok(existsSync(join(REPO, 'test', 'bench', `${n}.bench.ts`)), `test/bench/${n}.bench.ts`);
});

test('README.md and docs/ keep no second benchmark table (they link to BENCHMARKS.md)', () => {
  const pages = ['README.md'];
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (n.endsWith('.md')) pages.push(relative(REPO, p));
    }
  };
  walk(join(REPO, 'docs'));
  for (const p of pages) assert.deepEqual(benchmarkRows(readFileSync(join(REPO, p), 'utf8')), [], `${p} has a benchmark table`);
  assert.match(readFileSync(join(REPO, 'README.md'), 'utf8'), /\]\(test\/bench\/BENCHMARKS\.md\)/, 'the README links to BENCHMARKS.md');
});
