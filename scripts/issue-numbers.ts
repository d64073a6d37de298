/**
 * Issue numbers belong to the commit history, not to the code: this finds them in the comments of a
 * source file and, where `strings` is set (src/ and test/), in its string literals, which include test
 * titles (`test(`, `it(`, `describe(`) and bench labels. Used by scripts/lint.ts.
 */

/** An issue number as prose writes it: "issue" or "issues" and a number (a "#" optional), or "#" and a number in brackets. */
export const ISSUE_NUMBER = /\bissues? #?\d+|\(#\d+\)/i;

/** The comment part of a line of code ('' where it has none): after `//`, `/*`, or a leading `*`. */
export const commentOf = (line: string): string => /(?:^|\s|;)(?:\/\/|\/\*)(.*)$/.exec(line)?.[1] ?? /^\s*\*(.*)$/.exec(line)?.[1] ?? '';

/** The line without its comment part. */
const codeOf = (line: string): string => {
  if (/^\s*\*/.test(line)) return '';
  const m = /(?:^|\s|;)(?:\/\/|\/\*)/.exec(line);
  return m ? line.slice(0, m.index) : line;
};

const STRING = /'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\]|\\.)*`/g;
const TEST_CALL = /\b(?:test|it|describe)(?:\.\w+)?\(\s*$/;

/** One issue number found: the line (from 1) and what it is in. */
export interface IssueNumber {
  line: number;
  where: 'comment' | 'test title' | 'string';
}

export function issueNumbers(text: string, o: { strings: boolean }): IssueNumber[] {
  const found: IssueNumber[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (ISSUE_NUMBER.test(commentOf(line))) found.push({ line: i + 1, where: 'comment' });
    if (!o.strings) return;
    const code = codeOf(line);
    for (const m of code.matchAll(STRING)) {
      if (!ISSUE_NUMBER.test(m[0])) continue;
      // a title is the first argument: on this line after `test(`, or alone on the line after one ending `test(`
      const before = code.slice(0, m.index);
      const title = TEST_CALL.test(before) || (before.trim() === '' && i > 0 && TEST_CALL.test(codeOf(lines[i - 1]!)));
      found.push({ line: i + 1, where: title ? 'test title' : 'string' });
    }
  });
  return found;
}

/** The lint message of one finding in `file`. */
export function issueNumberProblem(file: string, f: IssueNumber): string {
  const what =
    f.where === 'comment' ? 'a comment (say what and why; the history has the rest)' : `a ${f.where} (say what it checks or measures, in plain words)`;
  return `${file}:${f.line}: an issue number in ${what}`;
}
