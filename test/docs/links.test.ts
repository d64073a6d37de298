/**
 * Every relative link of README.md and docs/ resolves: the file exists, and an `#anchor` names a heading of
 * the page it points to (GitHub's heading ids). A moved section or a renamed page fails here, naming the
 * page, the link and what is missing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Pages other branches add at the same time as this test (the README and docs/README.md link to them);
 * a link to one of them may dangle until that branch is merged. Remove a name once its page has landed.
 */
export const PAGES_LANDING = new Set<string>([]);

function markdownFiles(dir: string, out: string[] = []): string[] {
  for (const n of readdirSync(dir).sort()) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) markdownFiles(p, out);
    else if (p.endsWith('.md')) out.push(p);
  }
  return out;
}

/** GitHub's id of a heading: lower case, punctuation dropped (letters, digits, `_`, `-` and spaces kept), spaces as `-`. */
export function headingId(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replaceAll(' ', '-');
}

/** The heading ids of a markdown text (outside fenced blocks), with GitHub's `-1`, `-2` for repeats. */
export function headingIds(md: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  let fence = false;
  for (const line of md.split('\n')) {
    if (line.startsWith('```')) fence = !fence;
    if (fence) continue;
    const m = /^#{1,6} (.*)$/.exec(line);
    if (!m) continue;
    const id = headingId(m[1]!);
    const n = seen.get(id);
    seen.set(id, (n ?? -1) + 1);
    ids.add(n === undefined ? id : `${id}-${n + 1}`);
  }
  return ids;
}

/** The link targets of a markdown text, outside fenced blocks and inline code: `[text](target)`. */
export function linkTargets(md: string): string[] {
  const out: string[] = [];
  let fence = false;
  for (const line of md.split('\n')) {
    if (line.startsWith('```')) fence = !fence;
    if (fence) continue;
    const prose = line.replace(/`[^`]*`/g, '``');
    for (const m of prose.matchAll(/\]\(([^)\s]+)\)/g)) out.push(m[1]!);
  }
  return out;
}

/** What is wrong with each relative link of `file` (empty when every one resolves). */
export function brokenLinks(file: string, md = readFileSync(file, 'utf8')): string[] {
  const problems: string[] = [];
  for (const target of linkTargets(md)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
    const [path, anchor] = target.split('#', 2) as [string, string | undefined];
    const resolved = path === '' ? file : normalize(join(dirname(file), decodeURIComponent(path)));
    const rel = relative(REPO, resolved);
    if (!existsSync(resolved)) {
      if (!PAGES_LANDING.has(rel)) problems.push(`${target}: no such file ${rel}`);
      continue;
    }
    if (anchor && resolved.endsWith('.md') && !headingIds(readFileSync(resolved, 'utf8')).has(anchor)) {
      problems.push(`${target}: ${rel} has no heading #${anchor}`);
    }
  }
  return problems;
}

const files = [join(REPO, 'README.md'), ...markdownFiles(join(REPO, 'docs'))];

test('heading ids and link targets are read as GitHub renders them', () => {
  assert.equal(headingId('`rank:` entries in a backtest'), 'rank-entries-in-a-backtest');
  assert.equal(headingId("The local exchange's market churn"), 'the-local-exchanges-market-churn');
  assert.equal(headingId('Importers of the real data in `data/`'), 'importers-of-the-real-data-in-data');
  assert.deepEqual([...headingIds('# A\n## B\n```\n# not a heading\n```\n## B\n')], ['a', 'b', 'b-1']);
  assert.deepEqual(linkTargets('see [x](a.md#b) and `[y](not-a-link)`\n```\n[z](in-a-fence)\n```\n[w](../c)'), ['a.md#b', '../c']);
});

test('a missing page and a missing heading are both reported; a page still landing is not', () => {
  const page = join(REPO, 'docs', 'README.md');
  const md = '[a](no-such-page.md) [b](architecture.md#no-such-heading) [c](architecture.md#invariants) [d](go-live.md) `[e](in-code.md)`';
  assert.deepEqual(brokenLinks(page, md), [
    'no-such-page.md: no such file docs/no-such-page.md',
    'architecture.md#no-such-heading: docs/architecture.md has no heading #no-such-heading',
  ]);
});

for (const file of files) {
  test(`${relative(REPO, file)}: every relative link resolves`, () => {
    assert.deepEqual(brokenLinks(file), [], `${relative(REPO, file)} has broken links`);
  });
}

test('README.md stays short (at most 20 KB): detail belongs in docs/', () => {
  const bytes = statSync(join(REPO, 'README.md')).size;
  assert.ok(bytes <= 20 * 1024, `README.md is ${bytes} bytes`);
});
