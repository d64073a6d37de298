/** The volatility estimate (src/strategy/volatility.ts): viewSigma carries ewmaSigma forward with the market's memo, bit for bit. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MarketMemo } from '../../src/state/market-memo.ts';
import { MidHistory } from '../../src/state/mid-history.ts';
import type { MidSample } from '../../src/strategy/types.ts';
import { ewmaSigma, viewSigma } from '../../src/strategy/volatility.ts';
import { makeView, NOW } from './make-view.ts';

/** Appends one sample, keeping at most `max` (the store's pushBounded: samples shared, a new array). */
function pushBounded(list: readonly MidSample[], item: MidSample, max: number): MidSample[] {
  const keep = list.length >= max ? max - 1 : list.length;
  return [...list.slice(list.length - keep), item];
}

/** A mid path with irregular gaps, repeated timestamps and an out-of-order sample (they carry no time). */
function samples(n: number): MidSample[] {
  const out: MidSample[] = [];
  let ts = NOW;
  let mid = 500_000;
  for (let i = 0; i < n; i++) {
    ts += i % 7 === 3 ? 0 : i % 11 === 5 ? -200 : 250 + ((i * 7919) % 1700);
    mid += ((i * 104_729) % 9) * 1_000 - 4_000;
    out.push({ ts, mid });
  }
  return out;
}

test('viewSigma: equal to ewmaSigma on every history of a growing, then bounded, series (exactly)', () => {
  const memo = new MarketMemo();
  const opts = { lambda: 0.94, minSigma: 0 };
  let history: MidSample[] = [];
  for (const s of samples(120)) {
    history = pushBounded(history, s, 40);
    const view = makeView({ midHistory: history, memo });
    assert.equal(viewSigma(view, opts), ewmaSigma(history, opts), `history of ${history.length} ending at ${s.ts}`);
    // the same history again (a tick without a new sample)
    assert.equal(viewSigma(view, opts), ewmaSigma(history, opts));
  }
  assert.equal(memo.sigma?.history, history);
});

test('viewSigma: a history that is not the last one plus a sample is walked in full', () => {
  const opts = { lambda: 0.9, minSigma: 0.0001 };
  const all = samples(30);
  const memo = new MarketMemo();
  const at = (h: MidSample[]) => viewSigma(makeView({ midHistory: h, memo }), opts);
  assert.equal(at(all.slice(0, 20)), ewmaSigma(all.slice(0, 20), opts));
  // one longer with the same ends, but a different sample in the middle: a different series
  const changed = all.slice(0, 21);
  changed[10] = { ts: changed[10]!.ts, mid: changed[10]!.mid + 50_000 };
  assert.equal(at(changed), ewmaSigma(changed, opts));
  // dropped its oldest sample (the bound) and gained one: not an append
  assert.equal(at(all.slice(1, 21)), ewmaSigma(all.slice(1, 21), opts));
  // shorter (a fork of the store, an earlier state): walked
  assert.equal(at(all.slice(1, 10)), ewmaSigma(all.slice(1, 10), opts));
  // another λ on the same history
  const h = all.slice(1, 10);
  assert.equal(viewSigma(makeView({ midHistory: h, memo }), { lambda: 0.5, minSigma: 0 }), ewmaSigma(h, { lambda: 0.5, minSigma: 0 }));
  // a view without a memo (hand-built) is the plain walk
  assert.equal(viewSigma(makeView({ midHistory: all }), opts), ewmaSigma(all, opts));
});

test('viewSigma: a bad sample poisons the series as the walk does, and the floor applies', () => {
  const memo = new MarketMemo();
  const opts = { lambda: 0.94, minSigma: 0.002 };
  let h: MidSample[] = [];
  for (const s of [...samples(5), { ts: NOW + 10_000_000, mid: Number.NaN }, ...samples(3).map((x) => ({ ts: x.ts + 20_000_000, mid: x.mid }))]) {
    h = pushBounded(h, s, 100);
    const got = viewSigma(makeView({ midHistory: h, memo }), opts);
    assert.ok(Object.is(got, ewmaSigma(h, opts)), `${got} after ${h.length} samples`);
  }
  assert.equal(viewSigma(makeView({ midHistory: [], memo: new MarketMemo() }), opts), 0.002);
});

test("the store's mid history (increments kept from the push) gives the array walk's bits: bounded, forked, same-ms, out-of-order and NaN samples", () => {
  const opts = { lambda: 0.94, minSigma: 0 };
  const all = [...samples(90), { ts: NOW + 10_000_000, mid: Number.NaN }, ...samples(20).map((x) => ({ ts: x.ts + 20_000_000, mid: x.mid }))];
  let h = MidHistory.EMPTY;
  let arr: MidSample[] = [];
  const memo = new MarketMemo();
  let fork: [MidHistory, MidSample[]] | null = null;
  for (const [i, s] of all.entries()) {
    h = h.push(s, 40);
    arr = pushBounded(arr, s, 40);
    assert.ok(Object.is(ewmaSigma(h, opts), ewmaSigma(arr, opts)), `walk after ${i + 1} samples`);
    assert.ok(Object.is(viewSigma(makeView({ midHistory: h, memo }), opts), ewmaSigma(arr, opts)), `carried after ${i + 1} samples`);
    if (i === 50) fork = [h, arr];
  }
  // a push onto an older history copies its window (a fork): the copy's increments are the same
  const [fh, fa] = fork!;
  const s = { ts: fa.at(-1)!.ts + 777, mid: 612_345 };
  assert.ok(Object.is(ewmaSigma(fh.push(s, 40), opts), ewmaSigma(pushBounded(fa, s, 40), opts)));
  assert.ok(Object.is(ewmaSigma(MidHistory.of(arr), opts), ewmaSigma(arr, opts)));
});
