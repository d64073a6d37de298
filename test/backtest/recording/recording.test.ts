import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, truncateSync, statSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordingWriter } from '../../../src/backtest/recording/writer.ts';
import { readEvents, readManifest, type ReadStats } from '../../../src/backtest/recording/reader.ts';
import { KIND_BBO, KIND_CLEAR, KIND_LEVEL, KIND_TRADE, readColumns, toColumns, writeColumns } from '../../../src/backtest/recording/columns.ts';
import { replayMarketId, type RecordedEvent } from '../../../src/backtest/recording/format.ts';

const M = '0x' + 'ab'.repeat(32);
const stats = (): ReadStats => ({ files: 0, lines: 0, events: 0, dropped: 0, dropReasons: [], truncatedFiles: 0 });
const ev = (i: number): RecordedEvent => ({ t: 'book', m: M, vts: 1000 + i, lts: 1000 + i, seq: i, b: [[400_000 + i, 1_000_000]], a: [] });

test('writer rotates by size, reader returns every event in order', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bm-rec-'));
  try {
    const w = new RecordingWriter({ dir, source: 'test', markets: [{ id: M, tick: 10_000 }], rotateBytes: 2_000 });
    for (let i = 0; i < 200; i++) w.write(ev(i));
    const man = await w.close();
    assert.ok(man.files.length > 3, `rotated into ${man.files.length} files`);
    assert.equal(
      man.files.reduce((s, f) => s + f.events, 0),
      200,
    );
    const got = [...readEvents(dir)];
    assert.equal(got.length, 200);
    assert.deepEqual(got[137], ev(137));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a restarted writer resumes in a new file and keeps the markets; a truncated file yields what decodes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bm-rec-'));
  try {
    const w1 = new RecordingWriter({ dir, source: 'test', markets: [{ id: M, tick: 10_000 }] });
    for (let i = 0; i < 500; i++) w1.write(ev(i));
    await w1.close();
    // Simulate a crash that cut the first file short.
    const f1 = join(dir, 'events-000001.jsonl.gz');
    truncateSync(f1, Math.floor(statSync(f1).size * 0.8));
    const w2 = new RecordingWriter({ dir, source: 'test' });
    for (let i = 500; i < 510; i++) w2.write(ev(i));
    const man = await w2.close();
    assert.deepEqual(
      man.files.map((f) => f.name),
      ['events-000001.jsonl.gz', 'events-000002.jsonl.gz'],
    );
    assert.equal(readManifest(dir).markets[0]!.id, M);
    const st = stats();
    const got = [...readEvents(dir, st)];
    assert.equal(st.truncatedFiles, 1);
    assert.ok(got.length > 100 && got.length < 510, `decoded ${got.length}`);
    assert.deepEqual(got[got.length - 1], ev(509));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('malformed lines are dropped and counted, never thrown', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bm-rec-'));
  try {
    writeFileSync(
      join(dir, 'manifest.json'),
      JSON.stringify({ format: 'bookmaker-recording', version: 1, source: 't', createdAt: '', priceScale: 1e6, sizeScale: 1e6, markets: [], files: [] }),
    );
    const lines = [
      JSON.stringify(ev(1)),
      '{not json',
      JSON.stringify({ ...ev(2), b: [[1.5, 3]] }),
      JSON.stringify({ t: 'trade', m: M, vts: 1, lts: 1, p: 0, s: 1, side: 'buy' }),
      JSON.stringify({ t: 'nope', m: M, vts: 1, lts: 1 }),
      JSON.stringify(ev(3)),
    ];
    writeFileSync(join(dir, 'events-000001.jsonl.gz'), gzipSync(lines.join('\n') + '\n'));
    const st = stats();
    const got = [...readEvents(dir, st)];
    assert.equal(got.length, 2);
    assert.equal(st.dropped, 4);
    assert.match(st.dropReasons.join('\n'), /b\[0\]/);
    assert.throws(() => readManifest(join(dir, 'missing')), /manifest\.json/);
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ format: 'bookmaker-recording', version: 99, markets: [], files: [] }));
    assert.throws(() => readManifest(dir), /version: expected 1/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('columns round-trip snapshots, levels, trades and bbo', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bm-cols-'));
  try {
    const events: RecordedEvent[] = [
      { t: 'book', m: M, vts: 1, lts: 2, snap: true, b: [[400_000, 5]], a: [[410_000, 6]] },
      { t: 'trade', m: M, vts: 3, lts: 4, p: 410_000, s: 6, side: 'buy' },
      { t: 'book', m: 'other', vts: 5, lts: 6, b: [], a: [[420_000, 0]] },
      { t: 'bbo', m: M, vts: 7, lts: 8, bid: 400_000, ask: 0 },
      { t: 'oracle', m: M, vts: 9, lts: 9, probability: 500_000, confidence: null },
    ];
    const c = toColumns(events, [M]);
    writeColumns(dir, c);
    const r = readColumns(dir);
    assert.equal(r.rows, 6);
    assert.deepEqual(r.markets, [M, 'other']);
    assert.deepEqual([...r.kind], [KIND_CLEAR, KIND_LEVEL, KIND_LEVEL, KIND_TRADE, KIND_LEVEL, KIND_BBO]);
    assert.deepEqual([...r.side], [0, 0, 1, 0, 1, 0]);
    assert.deepEqual([...r.price], [0, 400_000, 410_000, 410_000, 420_000, 400_000]);
    assert.deepEqual([...r.market], [0, 0, 0, 0, 1, 0]);
    assert.deepEqual([...r.lts], [2, 2, 2, 4, 6, 8]);
    const raw = readFileSync(join(dir, 'book.cols'));
    raw.write('XXXXXXXX', 0, 'latin1');
    writeFileSync(join(dir, 'book.cols'), raw);
    assert.throws(() => readColumns(dir), /BMKCOLS1/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a recording's market ids are read in one form whatever case the files hold (events, manifest, columns header)", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bm-rec-'));
  try {
    const mixed = '0x' + 'aB'.repeat(32);
    const w = new RecordingWriter({
      dir,
      source: 'test',
      markets: [
        { id: mixed, tick: 10_000 },
        { id: 'TICKER-1', tick: 10_000 },
      ],
    });
    w.write({ ...ev(0), m: mixed });
    w.write({ ...ev(1), m: 'TICKER-1' });
    await w.close();
    assert.deepEqual(
      [...readEvents(dir)].map((e) => e.m),
      [M, 'TICKER-1'],
      'a 32-byte id lower-case; any other id as recorded',
    );
    assert.deepEqual(
      readManifest(dir).markets.map((m) => m.id),
      [M, 'TICKER-1'],
    );
    writeColumns(dir, toColumns([{ ...ev(0), m: mixed }], [mixed]));
    assert.deepEqual(readColumns(dir).markets, [M]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the replayed bot knows a recorded 32-byte id as that id in normal form, and a ticker by its text', () => {
  assert.equal(replayMarketId('0x' + 'aB'.repeat(32)), M);
  assert.equal(replayMarketId(M), M);
  assert.equal(replayMarketId('TICKER-1'), 'TICKER-1');
});

test("writeMany (an importer's whole output in ~64 KB chunks) writes the files write() writes one event at a time, byte for byte, rotated at the same events", async () => {
  const one = mkdtempSync(join(tmpdir(), 'bm-rec-'));
  const many = mkdtempSync(join(tmpdir(), 'bm-rec-'));
  try {
    const events = Array.from({ length: 20_000 }, (_, i) => ev(i));
    const opts = { source: 'test', markets: [{ id: M, tick: 10_000 }], rotateBytes: 300_000, rotateMs: Number.POSITIVE_INFINITY };
    const w1 = new RecordingWriter({ dir: one, ...opts });
    for (const e of events) if (!w1.write(e)) await w1.drain();
    const m1 = await w1.close();
    const w2 = new RecordingWriter({ dir: many, ...opts });
    await w2.writeMany(events);
    const m2 = await w2.close();
    assert.ok(m1.files.length >= 4, `rotated into ${m1.files.length} files`);
    assert.deepEqual(m2.files, m1.files, 'the same files, events and times');
    for (const f of m1.files) assert.ok(readFileSync(join(one, f.name)).equals(readFileSync(join(many, f.name))), `${f.name}: the same bytes`);
    assert.deepEqual([...readEvents(many)], events);
  } finally {
    rmSync(one, { recursive: true, force: true });
    rmSync(many, { recursive: true, force: true });
  }
});
