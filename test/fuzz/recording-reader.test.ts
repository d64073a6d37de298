/**
 * Fuzz of the recording reader (src/backtest/recording/): damaged manifests, events files with mutated
 * lines, truncated gzip, non-gzip bytes, and corrupt `book.cols` column files. The reader gives a manifest
 * or a BadInputError, yields only valid events and counts every dropped line (never throws mid-file), and
 * a corrupt columns file is a BadInputError naming the file, never a RangeError or SyntaxError.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { readEvents, readManifest, type ReadStats } from '../../src/backtest/recording/reader.ts';
import { readColumns, toColumns, writeColumns } from '../../src/backtest/recording/columns.ts';
import { validateEvent, type RecordedEvent } from '../../src/backtest/recording/format.ts';
import { BadInputError } from '../../src/model/errors.ts';
import { mutateJson, prng } from './mutate.ts';

const root = mkdtempSync(join(tmpdir(), 'bm-fuzz-rec-'));
after(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const freshDir = (): string => {
  const d = join(root, String(dirs++));
  mkdirSync(d, { recursive: true });
  return d;
};

const M = 'mkt-1';
const MANIFEST = {
  format: 'bookmaker-recording',
  version: 1,
  source: 'fuzz',
  createdAt: '2026-11-21T10:00:00Z',
  priceScale: 1_000_000,
  sizeScale: 1_000_000,
  markets: [{ id: M, tick: 10_000 }],
  files: [{ name: 'events-000001.jsonl.gz', events: 4, firstLts: 1, lastLts: 4 }],
};
const EVENTS: RecordedEvent[] = [
  { t: 'book', m: M, vts: 1, lts: 1, snap: true, b: [[400_000, 5_000_000]], a: [[600_000, 5_000_000]] },
  { t: 'book', m: M, vts: 2, lts: 2, b: [[410_000, 1_000_000]], a: [] },
  { t: 'trade', m: M, vts: 3, lts: 3, p: 600_000, s: 1_000_000, side: 'buy' },
  { t: 'bbo', m: M, vts: 4, lts: 4, bid: 410_000, ask: 600_000 },
  { t: 'oracle', m: M, vts: 5, lts: 5, probability: 500_000, confidence: null },
];

function readAll(dir: string): { events: RecordedEvent[]; stats: ReadStats } {
  const stats: ReadStats = { files: 0, lines: 0, events: 0, dropped: 0, dropReasons: [], truncatedFiles: 0 };
  const events = [...readEvents(dir, stats)];
  return { events, stats };
}

test('events files with mutated lines, truncation and garbage: valid events out, every drop counted', (t) => {
  let n = 0;
  fc.assert(
    fc.property(fc.integer(), fc.nat(4), fc.constantFrom('gzip', 'truncated', 'garbage', 'empty'), (seed, mutations, form) => {
      n++;
      const dir = freshDir();
      writeFileSync(join(dir, 'manifest.json'), JSON.stringify(MANIFEST));
      const rnd = prng(seed);
      const lines = EVENTS.map((e, i) => (rnd() < 0.4 ? (JSON.stringify(mutateJson(e, seed + i, mutations + 1)) ?? 'undefined') : JSON.stringify(e)));
      if (rnd() < 0.2) lines.push('{"t":"book"', '\u0000\u0001', '[1,2,3]', 'x'.repeat(10_000));
      const text = lines.join('\n') + '\n';
      const gz = gzipSync(text);
      const bytes =
        form === 'gzip'
          ? gz
          : form === 'truncated'
            ? gz.subarray(0, Math.max(1, Math.floor(gz.length * rnd())))
            : form === 'garbage'
              ? Buffer.from(text)
              : Buffer.alloc(0);
      writeFileSync(join(dir, 'events-000001.jsonl.gz'), bytes);
      assert.equal(readManifest(dir).source, 'fuzz');
      const { events, stats } = readAll(dir);
      for (const e of events) assert.doesNotThrow(() => validateEvent(e));
      assert.equal(stats.events, events.length);
      assert.ok(stats.lines === stats.events + stats.dropped || stats.dropped >= 1, `lines ${stats.lines} = events ${stats.events} + dropped ${stats.dropped}`);
      if (form === 'gzip') assert.equal(stats.lines, stats.events + stats.dropped);
      rmSync(dir, { recursive: true, force: true });
    }),
    { numRuns: 800, seed: 6301 },
  );
  t.diagnostic(`fuzz cases: ${n}`);
});

test('damaged manifests: a manifest or a BadInputError', (t) => {
  let n = 0;
  const dir = freshDir();
  fc.assert(
    fc.property(fc.integer(), fc.integer({ min: 1, max: 4 }), fc.boolean(), (seed, count, asText) => {
      n++;
      const text = asText ? JSON.stringify(MANIFEST).slice(0, Math.abs(seed) % 200) : (JSON.stringify(mutateJson(MANIFEST, seed, count)) ?? '');
      writeFileSync(join(dir, 'manifest.json'), text);
      try {
        const m = readManifest(dir);
        assert.ok(Array.isArray(m.markets) && Array.isArray(m.files));
      } catch (e) {
        assert.ok(e instanceof BadInputError, `${(e as Error)?.constructor?.name}: ${(e as Error)?.message}`);
      }
    }),
    { numRuns: 1000, seed: 6302 },
  );
  t.diagnostic(`fuzz cases: ${n}`);
});

test('corrupt book.cols: BadInputError naming the file, never a RangeError or SyntaxError', (t) => {
  const dir = freshDir();
  const good = readFileSync(writeColumns(dir, toColumns(EVENTS, [M])));
  assert.equal(readColumns(dir).rows, toColumns(EVENTS, [M]).rows, 'the valid file reads back');
  let n = 0;
  fc.assert(
    fc.property(fc.integer(), fc.constantFrom('truncate', 'flip', 'header', 'rows'), (seed, how) => {
      n++;
      const rnd = prng(seed);
      let bytes = Buffer.from(good);
      if (how === 'truncate') bytes = bytes.subarray(0, Math.floor(rnd() * bytes.length));
      else if (how === 'flip') for (let i = 0; i < 4; i++) bytes[Math.floor(rnd() * bytes.length)] = Math.floor(rnd() * 256);
      else {
        const hl = bytes.readUInt32LE(8);
        const header =
          how === 'header'
            ? '{"version":1,"rows":'
            : JSON.stringify({ version: 1, rows: [-1, 1e9, 2.5, '3', null, 2 ** 40][Math.floor(rnd() * 6)], markets: [M] });
        const hb = Buffer.from(header.padEnd(hl, ' ').slice(0, Math.max(hl, header.length)));
        const head = Buffer.alloc(12);
        bytes.copy(head, 0, 0, 8);
        head.writeUInt32LE(hb.length, 8);
        bytes = Buffer.concat([head, hb, bytes.subarray(12 + hl)]);
      }
      writeFileSync(join(dir, 'book.cols'), bytes);
      try {
        const c = readColumns(dir);
        assert.ok(Number.isSafeInteger(c.rows) && c.rows >= 0 && c.lts.length === c.rows && c.side.length === c.rows, `rows ${c.rows}`);
      } catch (e) {
        assert.ok(e instanceof BadInputError, `${how}: ${(e as Error)?.constructor?.name}: ${(e as Error)?.message}`);
        assert.match(e.message, /book\.cols/);
      }
    }),
    { numRuns: 1500, seed: 6303 },
  );
  t.diagnostic(`fuzz cases: ${n}`);
});
