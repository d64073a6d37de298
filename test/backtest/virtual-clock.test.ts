/**
 * The virtual clock's timer heap: due times of live timers only, (due time, insertion order) as the
 * running order, and cancelled timers skipped wherever they sit in the heap.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VirtualClock } from '../../src/backtest/virtual-clock.ts';
import { createRng } from '../../src/sim/rng.ts';

test('nextDue skips cancelled timers at the top and runNext runs the earliest live one', () => {
  const clock = new VirtualClock(1000);
  const ran: string[] = [];
  const cancelA = clock.setTimeout(() => ran.push('a'), 5);
  const cancelB = clock.setTimeout(() => ran.push('b'), 5);
  clock.setTimeout(() => ran.push('c'), 7);
  assert.equal(clock.nextDue(), 1005);
  cancelA();
  assert.equal(clock.nextDue(), 1005, 'b is still due at 1005');
  cancelB();
  assert.equal(clock.nextDue(), 1007, 'both timers at 1005 are cancelled');
  assert.equal(clock.runNext(), true);
  assert.deepEqual(ran, ['c']);
  assert.equal(clock.now(), 1007);
  assert.equal(clock.nextDue(), Infinity);
  assert.equal(clock.runNext(), false);
});

test('timers run in (due time, insertion order) whatever is cancelled, against a sorted reference', () => {
  for (let seed = 1; seed <= 20; seed++) {
    const rng = createRng(seed).next;
    const clock = new VirtualClock(0);
    const want: { at: number; seq: number; live: boolean }[] = [];
    const cancels: (() => void)[] = [];
    const ran: number[] = [];
    for (let k = 0; k < 300; k++) {
      const at = Math.floor(rng() * 50);
      const seq = k;
      cancels.push(clock.setTimeout(() => ran.push(seq), at));
      want.push({ at, seq, live: true });
    }
    for (let k = 0; k < 300; k++) {
      if (rng() < 0.4) {
        cancels[k]!();
        want[k]!.live = false;
      }
    }
    const live = want.filter((w) => w.live).sort((x, y) => x.at - y.at || x.seq - y.seq);
    const dues: number[] = [];
    for (;;) {
      const due = clock.nextDue();
      if (due === Infinity) break;
      dues.push(due);
      clock.runNext();
    }
    assert.deepEqual(
      ran,
      live.map((w) => w.seq),
      `seed ${seed}`,
    );
    assert.deepEqual(
      dues,
      live.map((w) => w.at),
      `seed ${seed}: due times`,
    );
  }
});

test('schedule: a timer without a cancel function, in the same (due time, insertion order) as setTimeout', () => {
  const clock = new VirtualClock(0);
  const ran: string[] = [];
  clock.setTimeout(() => ran.push('a'), 5);
  clock.schedule(() => ran.push('b'), 5);
  clock.setTimeout(() => ran.push('c'), 5);
  clock.schedule(() => ran.push('d'), 2);
  const cancelE = clock.setTimeout(() => ran.push('e'), 5);
  clock.schedule(() => ran.push('f'), -3); // a negative delay is due now, as with setTimeout
  cancelE();
  while (clock.runNext());
  assert.deepEqual(ran, ['f', 'd', 'a', 'b', 'c']);
  assert.equal(clock.now(), 5);
});

test('timers set while others run (pushes between pops, the heap grown past its first 64 slots) run as a list ordered by (due time, insertion order) would run them', () => {
  for (let seed = 1; seed <= 20; seed++) {
    const rng = createRng(seed).next;
    const clock = new VirtualClock(0);
    // the reference: every timer set, in insertion order; each step runs the live one of least (due, seq)
    const ref: { at: number; seq: number; live: boolean }[] = [];
    const ran: number[] = [];
    const refRan: number[] = [];
    let seq = 0;
    const set = (delay: number): void => {
      const my = seq++;
      const cancel = clock.setTimeout(() => {
        ran.push(my);
        // a running timer sets up to three more, and sometimes cancels an earlier one
        const more = Math.floor(rng() * 3.2);
        for (let k = 0; k < more && seq < 2_000; k++) set(Math.floor(rng() * 20));
        if (rng() < 0.2 && cancels.length > 0) {
          const victim = Math.floor(rng() * cancels.length);
          cancels[victim]!();
          ref[victim]!.live = false;
        }
      }, delay);
      cancels.push(cancel);
      ref.push({ at: clock.now() + delay, seq: my, live: true });
    };
    const cancels: (() => void)[] = [];
    for (let k = 0; k < 100; k++) set(Math.floor(rng() * 30));
    for (;;) {
      // the reference's least live timer not run yet, found before the clock runs one (a running
      // timer may cancel any timer, itself included)
      let best = -1;
      for (let k = 0; k < ref.length; k++) {
        const r = ref[k]!;
        if (!r.live || refRan.includes(r.seq)) continue;
        if (best < 0 || r.at < ref[best]!.at || (r.at === ref[best]!.at && r.seq < ref[best]!.seq)) best = k;
      }
      const due = clock.nextDue();
      if (!clock.runNext()) {
        assert.equal(best, -1, `seed ${seed}: the clock has no timer left, the reference has`);
        break;
      }
      assert.equal(due, ref[best]!.at, `seed ${seed}: step ${ran.length}, due time`);
      refRan.push(ref[best]!.seq);
      assert.equal(ran[ran.length - 1], ref[best]!.seq, `seed ${seed}: step ${ran.length}`);
      assert.equal(clock.now(), ref[best]!.at, `seed ${seed}: the clock at the timer's due time`);
    }
    assert.ok(ran.length > 200, `seed ${seed}: ${ran.length} timers ran`);
  }
});

test('a cancel called after its timer ran does not cancel a later timer that took its slot', () => {
  const clock = new VirtualClock(0);
  const ran: string[] = [];
  const cancelA = clock.setTimeout(() => ran.push('a'), 1);
  assert.equal(clock.runNext(), true);
  // b takes the slot a freed; a's cancel, called late (as a kernel may when it re-arms), leaves b set
  const cancelB = clock.setTimeout(() => ran.push('b'), 1);
  clock.schedule(() => ran.push('c'), 2);
  cancelA();
  cancelA();
  assert.equal(clock.pendingTimers, 2);
  while (clock.runNext());
  assert.deepEqual(ran, ['a', 'b', 'c']);
  // and a cancel of a timer whose slot was freed and handed out twice since does nothing either
  const cancelD = clock.setTimeout(() => ran.push('d'), 1);
  cancelB();
  while (clock.runNext());
  cancelD();
  assert.deepEqual(ran, ['a', 'b', 'c', 'd']);
});
