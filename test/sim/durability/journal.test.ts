/**
 * The journal and snapshots behind --state: every acknowledged change is on disk before its answer
 * (read back from a copy of the files taken while the exchange still runs, as a crash would leave
 * them), a torn last record is dropped with a warning, and any other damage refuses to start,
 * naming the file and the offset, without touching the files.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFileSync, chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, harness } from '../helpers.ts';
import { createLocalExchange } from '../../../src/sim/local-exchange.ts';
import { frameText, scanRecords, StateFileError } from '../../../src/sim/durability/record-file.ts';
import type { Bytes32 } from '../../../src/model/order.ts';

const KEYS = [{ key: 'alice-key' }, { key: 'bob-key' }, { key: 'reader-key', perms: ['read' as const] }];

/** Copy the state file and its journal segments, as a crash at this instant would leave them. */
function crashCopy(fromDir: string, toDir: string): void {
  mkdirSync(toDir, { recursive: true });
  for (const n of readdirSync(fromDir)) if (n.startsWith('state')) copyFileSync(join(fromDir, n), join(toDir, n));
}

function sha(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

async function withTraffic(
  fn: (ctx: {
    dir: string;
    acked: { id: number; hash: string; nonce: string; body: unknown }[];
    cancelled: string[];
    h: Awaited<ReturnType<typeof harness>>;
  }) => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sim-journal-'));
  const h = await harness({ stateFile: join(dir, 'state'), seed: 11, apiKeys: KEYS });
  try {
    const acked: { id: number; hash: string; nonce: string; body: unknown }[] = [];
    const cancelled: string[] = [];
    for (let i = 0; i < 12; i++) {
      const body = h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 300_000 + i * 10_000, size: 2_000_000 });
      const r = await call(h.base, 'POST', '/orders', body, 'alice-key');
      assert.equal(r.status, 201);
      acked.push({ id: r.body.order.id, hash: r.body.order.hash ?? r.body.order.orderHash, nonce: body.nonce, body });
    }
    // a taker fills against the resting bids, one order is cancelled
    const take = h.bob.signOrder({ marketId: h.marketId, outcomeIndex: 0, side: 0, price: 700_000, size: 3_000_000 });
    assert.equal((await call(h.base, 'POST', '/orders', take, 'bob-key')).status, 201);
    const c = await call(h.base, 'POST', '/orders/cancel', h.alice.signCancel(acked[0]!.nonce as Bytes32), 'alice-key');
    assert.equal(c.status, 201);
    cancelled.push(acked[0]!.nonce);
    await fn({ dir, acked, cancelled, h });
  } finally {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function checkRestored(
  dir: string,
  acked: { id: number; nonce: string; body: unknown }[],
  cancelled: string[],
  expected: ReturnType<typeof snapshotOf>,
  warnings: string[] = [],
): Promise<void> {
  const ex = createLocalExchange({ stateFile: join(dir, 'state'), seed: 11, apiKeys: KEYS, expirySweepMs: 0, onWarning: (m) => warnings.push(m) });
  const base = await ex.start(0);
  try {
    assert.ok(ex.restoredRecords > 0, 'the changes came back from the journal');
    for (const a of acked) {
      const r = await call(base, 'GET', `/orders/${a.id}`, undefined, 'alice-key');
      assert.equal(r.status, 200);
      assert.equal(r.body.nonce, a.nonce, `order ${a.id} keeps its id`);
      assert.equal((await call(base, 'POST', '/orders', a.body, 'alice-key')).status, 409, 'a replay of an acknowledged order is a duplicate');
    }
    for (const n of cancelled) assert.equal(ex.orders.byTraderNonce(ex.state.keys.get('alice-key')!.wallet, n)!.status, 'cancelled');
    assert.deepEqual(snapshotOf(ex), expected);
    assert.deepEqual(ex.state.engine.engine.checkInvariants(), []);
  } finally {
    await ex.close();
  }
}

function snapshotOf(ex: ReturnType<typeof createLocalExchange>) {
  const a = ex.state.keys.get('alice-key')!.wallet;
  const b = ex.state.keys.get('bob-key')!.wallet;
  const m = [...ex.state.stores.markets.values()][0]!.id;
  return {
    orders: ex.state.stores.orders.map((o) => [o.id, o.nonce, o.status, o.filledShares, o.filledCollateral]),
    balances: [ex.state.engine.balance(a), ex.state.engine.balance(b)],
    positions: [ex.state.engine.position(a, m), ex.state.engine.position(b, m)],
    book: ex.state.engine.engine.book(ex.state.engine.marketIndex(m)!),
    activity: ex.state.stores.activity.map((x) => [x.seq, x.type, x.ts]),
  };
}

test('a crash copy of the files taken right after the answers restores every acknowledged order, fill, cancel and nonce', async () => {
  await withTraffic(async ({ dir, acked, cancelled, h }) => {
    const expected = snapshotOf(h.ex);
    crashCopy(dir, join(dir, 'crash'));
    await checkRestored(join(dir, 'crash'), acked, cancelled, expected);
  });
});

test('a torn last journal record is dropped with a warning; the acknowledged records before it stand', async () => {
  await withTraffic(async ({ dir, acked, cancelled, h }) => {
    const expected = snapshotOf(h.ex);
    const crash = join(dir, 'crash');
    crashCopy(dir, crash);
    const seg = readdirSync(crash)
      .filter((n) => n.includes('.wal.'))
      .sort()
      .pop()!;
    // half of a record: header and part of a payload, as an append cut by a crash leaves it
    const rec = frameText(JSON.stringify({ s: 999, k: 'req', t: 0 }));
    appendFileSync(join(crash, seg), rec.subarray(0, rec.length - 7));
    const warnings: string[] = [];
    await checkRestored(crash, acked, cancelled, expected, warnings);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /torn last record at byte offset \d+/);
  });
});

/** A crash copy of the exchange's folder `dir` in `dir/name`, and the path of its last journal segment there. */
function crashWithLastSegment(dir: string, name: string): { crash: string; seg: string } {
  const crash = join(dir, name);
  crashCopy(dir, crash);
  const last = readdirSync(crash)
    .filter((n) => n.includes('.wal.'))
    .sort()
    .pop()!;
  return { crash, seg: join(crash, last) };
}

test('a flipped bit inside the journal or the snapshot refuses to start, naming the file and the offset, and leaves the files as they are', async () => {
  await withTraffic(async ({ dir }) => {
    // journal: flip one bit in the payload of the second record (records follow it, so not a torn tail)
    const { crash, seg } = crashWithLastSegment(dir, 'crash');
    const buf = readFileSync(seg);
    const scan = scanRecords(buf, seg);
    assert.ok(scan.records.length >= 5);
    const at = scan.offsets[1]! + 12 + 40;
    buf[at] = buf[at]! ^ 0x04;
    writeFileSync(seg, buf);
    const before = sha(seg);
    assert.throws(
      () => createLocalExchange({ stateFile: join(crash, 'state'), seed: 11, apiKeys: KEYS }),
      (e: unknown) => e instanceof StateFileError && e.file === seg && e.offset === scan.offsets[1] && /bad payload checksum/.test(e.message),
    );
    assert.equal(sha(seg), before, 'the damaged file is not overwritten');

    // snapshot: a flipped bit in a balance (a v8 section) is caught by the checksum
    const crash2 = join(dir, 'crash2');
    crashCopy(dir, crash2);
    const snap = join(crash2, 'state');
    const s = readFileSync(snap);
    s[s.length - 200] = s[s.length - 200]! ^ 0x10;
    writeFileSync(snap, s);
    const before2 = sha(snap);
    assert.throws(
      () => createLocalExchange({ stateFile: snap, seed: 11, apiKeys: KEYS }),
      (e: unknown) => e instanceof StateFileError && e.file === snap && /offset \d+/.test(e.message),
    );
    assert.equal(sha(snap), before2);
  });
});

test('a record of an unknown kind (intact checksum) refuses to start, naming the journal and the record', async () => {
  await withTraffic(async ({ dir }) => {
    const { crash, seg } = crashWithLastSegment(dir, 'crash');
    const scan = scanRecords(readFileSync(seg), seg);
    const last = JSON.parse(scan.records[scan.records.length - 1]!.toString()) as { s: number };
    appendFileSync(seg, frameText(JSON.stringify({ s: last.s + 1, k: 'teleport', t: 1 })));
    assert.throws(
      () => createLocalExchange({ stateFile: join(crash, 'state'), seed: 11, apiKeys: KEYS }),
      /state\.wal\.\*: record seq \d+: unknown record kind 'teleport'/,
    );
    // a gap in the seqs is damage too
    const { crash: crash2, seg: seg2 } = crashWithLastSegment(dir, 'crash2');
    appendFileSync(seg2, frameText(JSON.stringify({ s: last.s + 5, k: 'host', t: 1, e: { t: 'trader', address: '0x' + '1'.repeat(40) } })));
    assert.throws(
      () => createLocalExchange({ stateFile: join(crash2, 'state'), seed: 11, apiKeys: KEYS }),
      (e: unknown) => e instanceof StateFileError && /seq \d+ where \d+ was expected/.test(e.message),
    );
  });
});

test('an unwritable state path is refused at start, before anything runs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sim-ro-'));
  try {
    if (process.getuid?.() === 0) {
      // root writes anywhere: a path under a regular file is never writable
      writeFileSync(join(dir, 'file'), 'x');
      assert.throws(() => createLocalExchange({ stateFile: join(dir, 'file', 'state') }), /state file .*not writable/);
    } else {
      chmodSync(dir, 0o500);
      assert.throws(() => createLocalExchange({ stateFile: join(dir, 'state') }), /state file .*not writable/);
    }
  } finally {
    chmodSync(dir, 0o700);
    rmSync(dir, { recursive: true, force: true });
  }
});

test('checkpoints keep the files bounded by the live state: the journal is dropped once a snapshot covers it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sim-ckpt-'));
  const h = await harness({ stateFile: join(dir, 'state'), seed: 11, apiKeys: KEYS, checkpointBytes: 20_000 });
  try {
    for (let i = 0; i < 60; i++) {
      const body = h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 200_000, size: 1_000_000 });
      assert.equal((await call(h.base, 'POST', '/orders', body, 'alice-key')).status, 201);
      assert.equal((await call(h.base, 'POST', '/orders/cancel', h.alice.signCancel(body.nonce), 'alice-key')).status, 201);
    }
    await h.ex.save();
    const segs = readdirSync(dir).filter((n) => n.includes('.wal.'));
    assert.equal(segs.length, 1, `one live segment, got ${segs.join(', ')}`);
    const crash = join(dir, 'crash');
    crashCopy(dir, crash);
    const ex = createLocalExchange({ stateFile: join(crash, 'state'), seed: 11, apiKeys: KEYS, expirySweepMs: 0 });
    try {
      assert.equal(ex.restoredRecords, 0, 'everything came from the snapshot');
      assert.equal(ex.state.stores.orders.length, 60);
      assert.ok(ex.state.stores.orders.every((o) => o.status === 'cancelled'));
    } finally {
      await ex.close();
    }
  } finally {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
