/**
 * the operator's state in the ledger. Halts and pauses replay from the operator actions
 * (they outlive the process); a clear, online or offline, opens the day where the books stand (not
 * at a mark from before the clear, which re-fired KILL_DAILY_LOSS at the next start); a running bot
 * never writes its peak and day start over a clear made by another process.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Clock } from '../../src/core/clock.ts';
import { openLedger } from '../../src/ledger/ledger.ts';
import { tradingDay } from '../../src/account/trading-day.ts';
import type { Address, Bytes32 } from '../../src/model/order.ts';
import { openBotLedger } from '../support/bot-ledger.ts';
import { settableClock } from '../support/venue-order.ts';

const M = ('0x' + '11'.repeat(32)) as Bytes32;
const M2 = ('0x' + '22'.repeat(32)) as Bytes32;
const TRADER = ('0x' + '33'.repeat(20)) as Address;
const DAY = 86_400_000;
const T0 = 20_000 * DAY + 3_600_000; // 01:00 UTC

const clockAt = settableClock;

function tmp(): { file: string; done: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'bookmaker-operator-'));
  return { file: join(dir, 'l.sqlite'), done: () => rmSync(dir, { recursive: true, force: true }) };
}

const open = (file: string, clock: Clock) => openBotLedger({ path: file, clock, trader: TRADER });

test('halts and pauses replay from the ledger in order; resume without a market lifts all', () => {
  const l = openLedger({ path: ':memory:', clock: clockAt(T0) });
  assert.deepEqual(l.operatorHolds(), { halt: null, pauses: new Map() });
  l.operatorAction('pause', M, 'news', 'admin', 'paused');
  l.operatorAction('pause', M2, null, 'admin', 'paused');
  l.operatorAction('resume', M2, null, 'admin', 'resumed');
  l.operatorAction('halt', null, 'incident 42', 'admin', 'every quote pulled until resume');
  l.operatorAction('reload', null, null, 'admin', '{}');
  let h = l.operatorHolds();
  assert.deepEqual(h.halt, { reason: 'incident 42', at: T0, source: 'admin' });
  assert.deepEqual([...h.pauses.keys()], [M]);
  assert.equal(h.pauses.get(M)?.reason, 'news');
  // a row of an older ledger holds the id as the operator typed it: read in its one form
  l.operatorAction('pause', '0x' + 'Cd'.repeat(32), null, 'admin', 'paused');
  assert.deepEqual([...l.operatorHolds().pauses.keys()], [M, '0x' + 'cd'.repeat(32)]);
  l.operatorAction('resume', null, 'over', 'admin', 'halt and every pause lifted');
  h = l.operatorHolds();
  assert.equal(h.halt, null);
  assert.equal(h.pauses.size, 0);
  l.close();
});

test('an offline clear opens the day where the books stand, not at the mark before midnight', async () => {
  const t = tmp();
  try {
    const clock = clockAt(T0 - 2 * 3_600_000); // yesterday 23:00
    let bl = await open(t.file, clock);
    bl.markNow(bl.books(), { peakPnl: 0, day: Math.floor(clock.t / DAY), dayStartPnl: 0 }); // a mark yesterday at PnL 0
    clock.t = T0; // today: the day opened at 0, a loss latched the kill switch
    bl.markNow(bl.books(), { peakPnl: 0, day: Math.floor(T0 / DAY), dayStartPnl: 0 });
    bl.latchKill('KILL_DAILY_LOSS', 'day PnL -60 < -50', null);
    bl.close();
    // the offline clear (bookmaker ctl clear-kill --offline): the bot is stopped
    const l = openLedger({ path: t.file, clock, mustExist: true });
    assert.equal(l.clearLatch('budget approved', 'cli')?.reason, 'KILL_DAILY_LOSS');
    l.close();
    bl = await open(t.file, clock);
    const r = bl.initialRisk(tradingDay('UTC'));
    assert.equal(bl.latch, null);
    assert.equal(r.peakPnl, null);
    // before the operator's state was in the ledger the day opened at yesterday's last mark (0), so the same loss fired again at once
    assert.equal(r.dayStartPnl, undefined, `the day opens at the first tick after the clear, got ${JSON.stringify(r)}`);
    bl.close();
  } finally {
    t.done();
  }
});

test('a running bot does not write its peak and day start over a clear made by another process', async () => {
  const t = tmp();
  try {
    const clock = clockAt(T0);
    const bl = await open(t.file, clock);
    bl.markNow(bl.books(), { peakPnl: 40_000_000, day: Math.floor(T0 / DAY), dayStartPnl: 35_000_000 });
    assert.equal(bl.ledger.risk().peakPnl, 40_000_000n);
    // another process clears the file (the lock keeps ctl out in practice; this is the ledger's own guard)
    const other = openLedger({ path: t.file, clock, lock: false });
    other.clearLatch('reset by hand', 'cli');
    other.close();
    clock.t += 10_000;
    bl.markNow(bl.books(), { peakPnl: 40_000_000, day: Math.floor(T0 / DAY), dayStartPnl: 35_000_000 });
    const r = bl.ledger.risk();
    assert.equal(r.peakPnl, null, 'the clear stands: the old peak is not written back');
    assert.equal(r.dayStartPnl, null);
    // its own clear (the admin endpoint's) resets its kernel too: its figures are written again
    bl.clearLatch('own clear', 'admin');
    bl.markNow(bl.books(), { peakPnl: 1_000_000, day: Math.floor(T0 / DAY), dayStartPnl: 0 });
    assert.equal(bl.ledger.risk().peakPnl, 1_000_000n);
    bl.close();
  } finally {
    t.done();
  }
});
