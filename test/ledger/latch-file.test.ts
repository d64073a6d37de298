/**
 * The latch file holds the operator's halt and pauses beside the kill-switch latch: encoded and read
 * back, OR-ed with the ledger's at open (also when the ledger is gone), pauses that do not fit turn
 * into a halt (fail closed), a damaged file reads as halted, an older file reads as no holds.
 */
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { asyncScheduler } from 'rxjs';
import type { Clock } from '../../src/core/clock.ts';
import {
  encodeLatchRecord,
  LATCH_FILE_BYTES,
  latchPathOf,
  PAUSES_OVERFLOW,
  readLatchFile,
  readLatchRecord,
  writeHoldsFile,
  writeLatchFile,
} from '../../src/ledger/latch-file.ts';
import { openLedger } from '../../src/ledger/ledger.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { withTmpLedger } from './tmp-ledger.ts';

const T0 = 1_800_000_000_000;
const M = ('0x' + '11'.repeat(32)) as Bytes32;
const M2 = ('0x' + '22'.repeat(32)) as Bytes32;
const clock: Clock = { now: () => T0, scheduler: asyncScheduler, setTimeout: () => () => undefined };

test('the halt and the pauses are written beside the latch and read back; each write keeps the other', () =>
  withTmpLedger((t) => {
    writeLatchFile(t.file, { reason: 'KILL_LOSS', detail: 'lost 50', at: T0 });
    assert.deepEqual(
      writeHoldsFile(t.file, { halt: { reason: 'incident', at: T0, source: 'admin' }, pauses: new Map([[M, { reason: null, at: T0 + 1, source: 'cli' }]]) }),
      {
        overflowed: 0,
      },
    );
    assert.equal(statSync(latchPathOf(t.file)).size, LATCH_FILE_BYTES);
    let r = readLatchRecord(t.file);
    assert.deepEqual(r.latch, { reason: 'KILL_LOSS', detail: 'lost 50', at: T0 }, 'the holds write kept the latch');
    assert.deepEqual(r.halt, { reason: 'incident', at: T0, source: 'admin' });
    assert.deepEqual([...r.pauses], [[M, { reason: null, at: T0 + 1, source: 'cli' }]]);
    writeLatchFile(t.file, null);
    r = readLatchRecord(t.file);
    assert.equal(r.latch, null);
    assert.equal(r.halt?.reason, 'incident', 'a latch clear keeps the halt');
    assert.equal(r.pauses.size, 1);
  }));

test('pauses that do not fit the file become a halt: never dropped', () => {
  const pauses = new Map<Bytes32, { reason: string; at: number; source: string }>();
  for (let i = 0; i < 60; i++) pauses.set(('0x' + i.toString(16).padStart(2, '0').repeat(32)) as Bytes32, { reason: 'x'.repeat(100), at: T0, source: 'admin' });
  const e = encodeLatchRecord({ latch: null, halt: { reason: 'first', at: T0, source: 'admin' }, pauses }, LATCH_FILE_BYTES, T0);
  assert.equal(e.overflowed, 60);
  assert.equal(e.buf.length, LATCH_FILE_BYTES);
  withTmpLedger((t) => {
    assert.equal(writeHoldsFile(t.file, { halt: null, pauses }).overflowed, 60);
    const r = readLatchRecord(t.file);
    assert.match(r.halt?.reason ?? '', new RegExp(`^${PAUSES_OVERFLOW} \\(60 paused markets\\)`));
    assert.equal(r.pauses.size, 0);
    // through the ledger: the operator's pause that overflows is a halt at the next start, also without the ledger
    const l = openLedger({ path: t.file, clock });
    writeHoldsFile(t.file, { halt: null, pauses: new Map() });
    for (const m of pauses.keys()) l.operatorAction('pause', m, 'x'.repeat(100), 'admin', 'paused');
    l.close();
    rmSync(t.file);
    const fresh = openLedger({ path: t.file, clock });
    assert.match(fresh.operatorHolds().halt?.reason ?? '', new RegExp(PAUSES_OVERFLOW));
    fresh.close();
  });
});

test('a damaged latch file reads as latched and halted; an older file (no holds fields) reads as today', () =>
  withTmpLedger((t) => {
    writeFileSync(latchPathOf(t.file), '{"latched":false,"halt":[1,2]}'.padEnd(LATCH_FILE_BYTES, ' '));
    let r = readLatchRecord(t.file);
    assert.equal(r.latch?.reason, 'LATCH_FILE_DAMAGED');
    assert.match(r.halt?.reason ?? '', /damaged \(fail closed/);
    writeFileSync(latchPathOf(t.file), '{"latched":false,"pauses":[["0xnot-a-market",null,"admin",1]]}'.padEnd(LATCH_FILE_BYTES, ' '));
    assert.match(readLatchRecord(t.file).halt?.reason ?? '', /damaged/);
    // an older file: 1,024 bytes, no halt or pauses
    writeFileSync(latchPathOf(t.file), '{"latched":true,"reason":"KILL_LOSS","detail":"d","at":5}'.padEnd(1023, ' ') + '\n');
    r = readLatchRecord(t.file);
    assert.deepEqual(r, { latch: { reason: 'KILL_LOSS', detail: 'd', at: 5 }, halt: null, pauses: new Map() });
    // its next write grows it to the full size, keeping the latch
    writeHoldsFile(t.file, { halt: { reason: 'h', at: 6, source: 'cli' }, pauses: new Map() });
    assert.equal(statSync(latchPathOf(t.file)).size, LATCH_FILE_BYTES);
    assert.equal(readLatchFile(t.file)?.reason, 'KILL_LOSS');
    assert.equal(readLatchRecord(t.file).halt?.reason, 'h');
  }));

test('a halt and a pause outlive the ledger file: a new ledger beside the latch file is halted and paused until resume', () =>
  withTmpLedger((t) => {
    let l = openLedger({ path: t.file, clock });
    l.operatorAction('halt', null, 'incident', 'admin', 'every quote pulled until resume');
    l.operatorAction('pause', M, 'news', 'admin', 'paused');
    l.operatorAction('pause', M2, null, 'admin', 'paused');
    l.operatorAction('resume', M2, null, 'admin', 'resumed');
    assert.equal(l.operatorHolds().halt?.from, 'ledger and latch file');
    l.close();
    for (const f of [t.file, `${t.file}-wal`, `${t.file}-shm`]) rmSync(f, { force: true });
    l = openLedger({ path: t.file, clock });
    assert.equal(l.ledgerHolds().halt, null, 'the new ledger holds nothing');
    const h = l.operatorHolds();
    assert.deepEqual(h.halt, { reason: 'incident', at: T0, source: 'admin', from: 'latch file' });
    assert.deepEqual([...h.pauses.keys()], [M]);
    assert.equal(h.pauses.get(M)?.from, 'latch file');
    l.operatorAction('resume', null, 'over', 'cli', 'halt and every pause lifted');
    assert.deepEqual(l.operatorHolds(), { halt: null, pauses: new Map() });
    assert.equal(readLatchRecord(t.file).halt, null, 'resume clears the file too');
    l.close();
  }));

test("a ledger's holds from before the file held them are copied into the file at open", () =>
  withTmpLedger((t) => {
    let l = openLedger({ path: t.file, clock });
    l.operatorAction('halt', null, 'old', 'admin', 'halted');
    l.close();
    writeFileSync(latchPathOf(t.file), '{"latched":false}'.padEnd(1023, ' ') + '\n'); // as an older bot left it
    l = openLedger({ path: t.file, clock });
    assert.equal(readLatchRecord(t.file).halt?.reason, 'old');
    l.close();
  }));

test('a halt the latch file cannot take still goes to the ledger, and the call throws (not called durable)', () =>
  withTmpLedger((t) => {
    const l = openLedger({ path: t.file, clock });
    rmSync(latchPathOf(t.file));
    mkdirSync(latchPathOf(t.file)); // cannot be written as a file
    assert.throws(() => l.operatorAction('halt', null, 'incident', 'admin', 'halted'), /the halt is in the ledger but the latch file .* could not be written/);
    assert.equal(l.ledgerHolds().halt?.reason, 'incident');
    assert.match(l.operatorHolds().halt?.reason ?? '', /^incident$/, "the ledger's halt, and the unreadable file's");
    assert.equal(l.operatorHolds().halt?.from, 'ledger and latch file');
    l.close();
  }));
