/**
 * Retention: the bot's prune runs in bounded batches on its clock until nothing older
 * than ledger.retainDays is left, then idles; retainDays 0 prunes nothing; a new ledger frees pages
 * as it goes (auto_vacuum INCREMENTAL).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { asyncScheduler } from 'rxjs';
import { openLedger } from '../../src/ledger/ledger.ts';
import { autoVacuum, DAY_MS, schedulePrune } from '../../src/ledger/retention.ts';
import type { Bytes32 } from '../../src/model/order.ts';

const T0 = 1_800_000_000_000;
const M = ('0x' + '11'.repeat(32)) as Bytes32;

test('the bot prunes old orders, cancels and marks in batches on its clock, then idles', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bookmaker-retention-'));
  try {
    const timers: { at: number; fn: () => void }[] = [];
    const clock = {
      t: T0,
      now: () => clock.t,
      scheduler: asyncScheduler,
      setTimeout(fn: () => void, ms: number) {
        const e = { at: clock.t + ms, fn };
        timers.push(e);
        return () => void timers.splice(timers.indexOf(e), 1);
      },
    };
    const runDue = (): void => {
      timers.sort((a, b) => a.at - b.at);
      const e = timers.shift()!;
      clock.t = Math.max(clock.t, e.at);
      e.fn();
    };
    const l = openLedger({ path: join(dir, 'l.sqlite'), clock });
    assert.equal(autoVacuum(l.db), 'incremental');
    for (let i = 0; i < 2_500; i++) {
      const nonce = ('0x' + i.toString(16).padStart(64, '0')) as Bytes32;
      const ts = i < 2_000 ? T0 - 100 * DAY_MS : T0;
      l.orderSubmitted({ nonce, marketId: M, slot: 's', outcomeIndex: 1, side: 0, price: 1, size: 1, ts }, false);
      l.orderEnded(nonce, 'cancelled', ts);
      l.cancel(nonce, M, 'sent', null, ts);
      l.mark(ts, M, 0, 0n, 0n);
    }
    l.fill({ fillId: 'f', nonce: null, marketId: M, outcomeIndex: 1, side: 0, price: 1, size: 1, fee: 0, ts: T0 - 100 * DAY_MS, source: 'feed' });
    l.flush();
    const n = (t: string): number => (l.db.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n;
    assert.equal(schedulePrune({ ledger: l, clock, retainDays: 0 })(), undefined, 'retainDays 0: nothing scheduled');
    assert.equal(timers.length, 0);
    const stop = schedulePrune({ ledger: l, clock, retainDays: 90, batch: 1_000, busyMs: 10_000, idleMs: 600_000 });
    runDue();
    assert.equal(n('orders'), 1_500, 'one batch of 1 000');
    runDue();
    runDue();
    assert.equal(n('orders'), 500);
    assert.equal(n('cancels'), 500);
    assert.equal(n('marks'), 500);
    assert.equal(n('fills'), 1, 'fills are never pruned');
    runDue(); // nothing left: idles
    assert.equal(timers[0]!.at - clock.t, 600_000);
    stop();
    assert.equal(timers.length, 0);
    l.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
