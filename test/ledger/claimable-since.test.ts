/**
 * The claims tracker's store in the ledger (src/ledger/claimable-since.ts) writes through the ledger's
 * batched writer like every record: queued (a read writes the queue first, so a put is read back), and a
 * write that fails is the ledger's failure: Ledger.problem reports it, so the hold of a ledger that cannot
 * be written (ledger-watch.ts: /readyz ledger-unwritable, every quote pulled) comes as it does for a fill,
 * and the row is kept queued and written once the disk takes it. On the old code the store wrote at once
 * beside the queue and a failure was a warn line alone: problem() stayed null, the bot was never held,
 * and the row was lost.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from '../../src/core/logger.ts';
import { claimableSinceStore } from '../../src/ledger/claimable-since.ts';
import { openLedger } from '../../src/ledger/ledger.ts';
import { LedgerWatch } from '../../src/ledger/ledger-watch.ts';
import { hex32, settableClock, T0 } from '../support/venue-order.ts';
import { withTmpLedger } from './tmp-ledger.ts';

const A = hex32('a');
const B = hex32('b');

test('a claimable_since write goes through the batched writer: queued, read back, on disk at the flush', () =>
  withTmpLedger(({ file }) => {
    const clock = settableClock(T0);
    const l = openLedger({ path: file, clock });
    const store = claimableSinceStore(l, createLogger({ level: 'silent' }));
    const before = l.written;
    store.put(A, { since: T0, payoutYes: 1_000_000n });
    assert.equal(l.pending, 1, 'queued, not written beside the queue');
    assert.equal(l.written, before);
    assert.deepEqual(store.get(A), { since: T0, payoutYes: 1_000_000n }, 'a read writes the queue first');
    assert.equal(l.written, before + 1, "counted as the writer's record");
    store.put(B, { since: T0 + 5, payoutYes: null });
    store.delete(A);
    l.close();
    const again = openLedger({ path: file, clock });
    assert.deepEqual([...claimableSinceStore(again, createLogger({ level: 'silent' })).all()], [[B, { since: T0 + 5, payoutYes: null }]]);
    again.close();
  }));

test("a full disk under a claimable_since write is the ledger's failure: problem(), the hold after the grace, the row kept and written once space is back", () =>
  withTmpLedger(({ file }) => {
    const clock = settableClock(T0);
    const lines: { msg: string; level: number }[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(JSON.parse(s) as { msg: string; level: number }) } });
    const l = openLedger({ path: file, clock, logger });
    const prepare = l.db.prepare.bind(l.db);
    let full = true;
    (l.db as { prepare: unknown }).prepare = (sql: string) => {
      if (full && /^\s*(INSERT|UPDATE|DELETE)/i.test(sql)) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
      return prepare(sql);
    };
    const held: string[] = [];
    const watch = new LedgerWatch({ ledger: l, clock, graceMs: 10_000, onDown: (r) => held.push(`down ${r}`), onUp: () => held.push('up') });
    const store = claimableSinceStore(l, logger);
    store.put(A, { since: T0, payoutYes: 400_000n });
    l.flush();
    assert.match(l.problem()?.reason ?? '(none)', /^writes fail: database or disk is full/, 'the failure is the ledger’s: /readyz and the watch see it');
    assert.equal(l.failures, 1);
    assert.equal(lines.filter((x) => x.msg === 'ledger write failed; retrying with the next batch').length, 1, 'logged as the queue logs');
    clock.t += 10_000;
    watch.check();
    assert.deepEqual(held, ['down writes fail: database or disk is full'], 'held as for any record the ledger cannot write');
    // space freed: the watch's retry writes the kept row, and the bot quotes again
    full = false;
    watch.check();
    assert.deepEqual(held.slice(1), ['up']);
    assert.equal(l.problem(), null);
    assert.deepEqual(store.get(A), { since: T0, payoutYes: 400_000n }, 'kept, then written: the overdue clock survives');
    l.close();
  }));
