/**
 * The lint rule against issue numbers (scripts/issue-numbers.ts): found in comments everywhere, and in
 * string literals (test titles, bench labels) where strings are checked; plain words pass. The
 * sources below are built at run time, so this file carries no issue number of its own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { issueNumberProblem, issueNumbers } from '../../scripts/issue-numbers.ts';

const N = ['issue', '22'].join(' ');
const HASH = ['(#', '24)'].join('');

test('issue numbers in test titles, bench labels and comments are found, each on its line and named for what it is in', () => {
  const src = [
    `test('${N}: a short token is refused', () => {});`,
    `it("refuses a short token ${HASH}", () => {});`,
    `describe.skip(\`${N}\`, () => {});`,
    'test(',
    `  '${N.toUpperCase()}: a title on a line of its own',`,
    `const row = ['goal ${HASH}', '≤ 50 KB'];`,
    `const label = { baseline: 'code before ${N} (--base)' };`,
    `// ${N}: why this is so`,
    ` * see ${N}`,
    `const x = 1; /* ${HASH} */`,
  ].join('\n');
  assert.deepEqual(issueNumbers(src, { strings: true }), [
    { line: 1, where: 'test title' },
    { line: 2, where: 'test title' },
    { line: 3, where: 'test title' },
    { line: 5, where: 'test title' },
    { line: 6, where: 'string' },
    { line: 7, where: 'string' },
    { line: 8, where: 'comment' },
    { line: 9, where: 'comment' },
    { line: 10, where: 'comment' },
  ]);
  // where strings are not checked (scripts/, strategies/): the comments only
  assert.deepEqual(
    issueNumbers(src, { strings: false }).map((f) => f.line),
    [8, 9, 10],
  );
  assert.equal(
    issueNumberProblem('test/a.test.ts', { line: 1, where: 'test title' }),
    'test/a.test.ts:1: an issue number in a test title (say what it checks or measures, in plain words)',
  );
});

test('plain words pass: "issues" without a number, numbers without "issue", a URL, a # in a string', () => {
  const src = [
    `test('a token shorter than 16 characters is refused', () => {});`,
    `const msg = 'the venue issues answers, 3 a second; see http://x/#22';`,
    `const tissue = 'tissue 3';`,
    `const n = '#24 of the markets';`,
    `// the issues the venue reports, 3 of them`,
  ].join('\n');
  assert.deepEqual(issueNumbers(src, { strings: true }), []);
});
