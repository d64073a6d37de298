import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { SseParser } from '../../../src/exchange/stream/sse-parser.ts';

type Ev = [type: string, data: string, id: string];
function parse(chunks: readonly (string | Buffer)[]): Ev[] {
  const out: Ev[] = [];
  const p = new SseParser((t, d, id) => out.push([t, d, id]));
  for (const c of chunks) p.push(c);
  return out;
}

const STREAM =
  '\uFEFF: hello\n\nevent: snapshot\nid: 7\ndata: {"a":1}\n\n' +
  ': heartbeat 123\n\n' +
  'event: delta\r\ndata: one\r\ndata: two\r\n\r\n' +
  'data:no-space\rid: 9\r\r' +
  'event: status\nretry: 100\nunknown: x\ndata\n\n' +
  'event: trade\n\n' +
  'id\ndata: after-empty-id\n\n' +
  'data: unterminated';

const WANT: Ev[] = [
  ['snapshot', '{"a":1}', '7'],
  ['delta', 'one\ntwo', '7'],
  ['message', 'no-space', '9'],
  ['status', '', '9'],
  ['message', 'after-empty-id', ''],
];

test('fields, comments, BOM, the three line ends, multi-line data; the id carries over; no data, no event', () => {
  assert.deepEqual(parse([STREAM]), WANT);
});

test('any split of the bytes gives the same events (inside a CRLF, inside a UTF-8 character)', () => {
  const bytes = Buffer.from(STREAM + '\n\ndata: é€😀\n\n', 'utf8');
  const want = [...WANT, ['message', 'unterminated', ''], ['message', 'é€😀', '']] as Ev[];
  fc.assert(
    fc.property(fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 12 }), (cuts) => {
      const at = [0, ...cuts.sort((a, b) => a - b), bytes.length];
      const chunks = at.slice(1).map((end, i) => bytes.subarray(at[i], end));
      assert.deepEqual(parse(chunks), want);
    }),
    { numRuns: 300 },
  );
});

test('a CR at the end of one chunk and an LF at the start of the next are one line end', () => {
  assert.deepEqual(parse(['data: x\r', '\n\r', '\n']), [['message', 'x', '']]);
});

test('a line longer than the limit throws instead of growing without bound', () => {
  const p = new SseParser(() => undefined, 10);
  p.push('data: 1234');
  assert.throws(() => p.push('567890'), /longer than 10/);
});

test('comments go to onComment in order with the events, the text after the colon and one space', () => {
  const seen: string[] = [];
  const p = new SseParser(
    (t, d) => seen.push(`${t}:${d}`),
    Infinity,
    (c) => seen.push(`#${c}`),
  );
  // split anywhere, the three line ends
  const text = ': heartbeat 1800000000002\n\nevent: delta\ndata: x\n\n:no-space\r\n\r\n:  two spaces\r\r';
  for (let i = 0; i < text.length; i += 3) p.push(text.slice(i, i + 3));
  assert.deepEqual(seen, ['#heartbeat 1800000000002', 'delta:x', '#no-space', '# two spaces']);
  assert.deepEqual(parse([text]), [['delta', 'x', '']], 'without onComment, comments are skipped as before');
});
