import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TickToWireMeter } from '../../src/kernel/tick-to-wire.ts';
import type { Bytes32 } from '../../src/model/order.ts';

const A = `0x${'a'.repeat(64)}` as Bytes32;

function meter() {
  let t = 0;
  const wire: number[] = [];
  const throttle: number[] = [];
  const m = new TickToWireMeter({ tickToWire: (s) => wire.push(s), throttle: (s) => throttle.push(s) }, () => t);
  const at = (ms: number) => (t = ms);
  /** Book events at `bookAt`, then a tick of `kind` starting at `startAt` that writes at `writeAt`. */
  const cycle = (bookAt: number[], startAt: number, kind: Parameters<TickToWireMeter['tickStart']>[1], writeAt: number) => {
    for (const ms of bookAt) {
      at(ms);
      m.bookEvent(A);
    }
    at(startAt);
    m.tickStart(A, kind);
    at(writeAt);
    m.write(A);
  };
  return { m, wire, throttle, at, cycle };
}

/** Seconds to whole microseconds. */
const micros = (xs: number[]) => xs.map((s) => Math.round(s * 1e6));

test('an event-driven tick charges from the event; a throttled tick reports the wait apart', () => {
  const { wire, throttle, cycle } = meter();
  cycle([1000], 1000.2, 'event', 1000.5);
  assert.deepEqual(micros(wire), [500]);
  assert.deepEqual(throttle, [0]);
  cycle([2000, 2100], 2200, 'throttled', 2200.3); // the book event at 2100 is coalesced into the first
  assert.deepEqual(micros(wire), [500, 300]);
  assert.deepEqual(
    throttle.map((s) => Math.round(s * 1e3)),
    [0, 200],
  );
});

test('a book event whose tick sent nothing is not charged to a later timer-driven order', () => {
  const { m, wire, at } = meter();
  at(0);
  m.bookEvent(A);
  m.tickStart(A, 'event'); // desired unchanged: nothing written
  at(5000);
  m.tickStart(A, 'housekeeping');
  m.write(A);
  at(6000);
  m.tickStart(A, 'manual');
  m.write(A);
  assert.deepEqual(wire, []);
  m.write(null);
  assert.deepEqual(wire, []);
});

test('one observation per caused send', () => {
  const { m, wire, at } = meter();
  at(0);
  m.bookEvent(A);
  m.tickStart(A, 'event');
  at(1);
  m.write(A);
  m.write(A);
  assert.equal(wire.length, 1);
});

test('a tick whose sync settled without writing owes nothing: a later write outside a tick is not charged', async () => {
  const { m, wire, at } = meter();
  at(0);
  m.bookEvent(A);
  m.tickStart(A, 'event');
  m.tickEnd(A, Promise.resolve());
  await new Promise((r) => setImmediate(r));
  at(2000);
  m.write(A);
  assert.deepEqual(wire, []);
  // a sync still running keeps the arm: its write is the caused send
  m.bookEvent(A);
  m.tickStart(A, 'event');
  let settle!: () => void;
  m.tickEnd(A, new Promise<void>((r) => (settle = r)));
  at(2001);
  m.write(A);
  settle();
  assert.equal(wire.length, 1);
});

test('a cancel-only send is observed apart, consumes the event, and is dropped (not misfiled) when the sink has no cancel series', () => {
  let t = 0;
  const wire: number[] = [];
  const cancel: number[] = [];
  const m = new TickToWireMeter({ tickToWire: (s) => wire.push(s), tickToCancel: (s) => cancel.push(s), throttle: () => undefined }, () => t);
  m.bookEvent(A);
  m.tickStart(A, 'event');
  t = 0.25;
  m.write(A, true);
  m.write(A); // a later create of the same tick: the event was already charged once
  assert.deepEqual(micros(cancel), [250]);
  assert.deepEqual(wire, []);
  const bare: number[] = [];
  const old = new TickToWireMeter({ tickToWire: (s) => bare.push(s), throttle: () => undefined }, () => t);
  old.bookEvent(A);
  old.tickStart(A, 'event');
  old.write(A, true);
  old.write(A);
  assert.deepEqual(bare, [], 'a cancel-only write is never counted as a create');
});
