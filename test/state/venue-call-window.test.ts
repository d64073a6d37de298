import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VenueCallWindow } from '../../src/state/venue-call-window.ts';

/** The window as the store kept it before: an array filtered and copied on every call. */
type Call = { ts: number; ok: boolean };
const naiveWith = (calls: readonly Call[], ts: number, ok: boolean, windowMs: number): Call[] => {
  const kept = calls.filter((c) => c.ts > ts - windowMs);
  kept.push({ ts, ok });
  return kept.length > 10_000 ? kept.slice(kept.length - 10_000) : kept;
};
const naiveCount = (calls: readonly Call[], now: number, windowMs: number) => {
  let requests = 0;
  let errors = 0;
  for (const c of calls) {
    if (c.ts <= now - windowMs) continue;
    requests++;
    if (!c.ok) errors++;
  }
  return { requests, errors };
};

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

test('the shared window counts what the copied array counted, step by step (time order, clock steps back, branches)', () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    const r = rng(seed);
    // several branches grow from earlier windows: only the tip of a log may append in place
    const branches: { w: VenueCallWindow; a: Call[]; t: number }[] = [{ w: VenueCallWindow.EMPTY, a: [], t: 1_000_000 }];
    for (let step = 0; step < 4_000; step++) {
      const pick = r() < 0.05 ? Math.floor(r() * branches.length) : branches.length - 1;
      const b = branches[pick]!;
      // mostly forward in time, now and then the same ms, rarely backwards
      const dt = r() < 0.02 ? -Math.floor(r() * 3_000) : r() < 0.2 ? 0 : Math.floor(r() * 400);
      const ts = b.t + dt;
      const ok = r() < 0.8;
      const next = { w: b.w.with(ts, ok, 60_000), a: naiveWith(b.a, ts, ok, 60_000), t: Math.max(b.t, ts) };
      assert.equal(next.w.size, next.a.length, `seed ${seed} step ${step}: size`);
      for (const now of [ts, ts + 1, ts + 30_000, ts + 59_999, ts + 60_000, ts + 120_000]) {
        for (const win of [60_000, 10_000])
          assert.deepEqual(next.w.count(now, win), naiveCount(next.a, now, win), `seed ${seed} step ${step} now +${now - ts} window ${win}`);
      }
      if (r() < 0.03) branches.push(next);
      else branches[branches.length - 1] = pick === branches.length - 1 ? next : branches[branches.length - 1]!;
      // an old window read again after others grew from it: what it holds has not changed
      const old = branches[0]!;
      assert.deepEqual(old.w.count(old.t, 60_000), naiveCount(old.a, old.t, 60_000));
    }
  }
});

test('at most the newest 10,000 calls are kept, and the log head is dropped as the window slides', () => {
  let w = VenueCallWindow.EMPTY;
  let a: Call[] = [];
  for (let i = 0; i < 15_000; i++) {
    const ok = i % 7 !== 0;
    w = w.with(1_000 + i, ok, 3_600_000);
    a = naiveWith(a, 1_000 + i, ok, 3_600_000);
  }
  assert.equal(w.size, 10_000);
  assert.deepEqual(w.count(16_000, 3_600_000), naiveCount(a, 16_000, 3_600_000));
  // a short window over the same calls
  for (let i = 0; i < 20_000; i++) w = w.with(30_000 + i * 10, i % 3 === 0, 1_000);
  assert.equal(w.size, 100);
  assert.deepEqual(w.count(30_000 + 19_999 * 10, 1_000), { requests: 100, errors: 67 });
});

test('count over times that move forward by less than a call (where the last search ended is looked at first): what the array counts, exact call times included', () => {
  for (const seed of [11, 12, 13]) {
    const r = rng(seed);
    let w = VenueCallWindow.EMPTY;
    let a: Call[] = [];
    let ts = 0;
    let now = -5;
    for (let step = 0; step < 3_000; step++) {
      if (r() < 0.5) {
        // calls at the same ms now and then
        ts += r() < 0.3 ? 0 : 1 + Math.floor(r() * 4);
        const ok = r() < 0.8;
        w = w.with(ts, ok, 20);
        a = naiveWith(a, ts, ok, 20);
      }
      // probes step forward by 0-3 ms, now and then back, landing on call times exactly
      now += r() < 0.05 ? -Math.floor(r() * 10) : Math.floor(r() * 4);
      for (const win of [20, 7]) assert.deepEqual(w.count(now, win), naiveCount(a, now, win), `seed ${seed} step ${step} now ${now} window ${win}`);
    }
  }
});

test('the count hint is not part of the value: a window that was counted equals (deepStrictEqual) one that was not', () => {
  const build = () => {
    let w = VenueCallWindow.EMPTY;
    for (let i = 0; i < 20; i++) w = w.with(1_000 + i * 10, i % 3 !== 0, 60_000);
    return w;
  };
  const a = build();
  const b = build();
  a.count(1_100, 60_000);
  a.count(61_100, 60_000);
  assert.deepStrictEqual(a, b);
});
