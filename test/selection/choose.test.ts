import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chooseRanked, isKept, type ChooseSettings, type RankCandidate } from '../../src/selection/choose.ts';
import { rankTerms } from '../../src/selection/score.ts';
import { RANK_TERMS } from '../../src/config/types.ts';

const NO_TERMS = Object.fromEntries(RANK_TERMS.map((t) => [t, null])) as ReturnType<typeof rankTerms>['terms'];
const C = (id: string, score: number, o: Partial<RankCandidate> = {}): RankCandidate => ({ id, score, terms: NO_TERMS, status: 'active', scored: true, ...o });
const S: ChooseSettings = { top: 3, minScore: null, perMarket: 100, total: 0, enterMargin: 0, minHoldMs: 0 };
const FIRST = { previous: undefined, enteredAt: new Map<string, number>(), nowMs: 0 };

const verdicts = (d: ReturnType<typeof chooseRanked>): Record<string, string> => Object.fromEntries(d.map((x) => [x.id, x.verdict]));
const keptIds = (d: ReturnType<typeof chooseRanked>): string[] =>
  d
    .filter((x) => isKept(x.verdict))
    .map((x) => x.id)
    .sort();

test('top N by score; ties broken by id; ineligible and unscored markets are never kept', () => {
  const d = chooseRanked(
    [C('a', 1), C('b', 3), C('c', 2), C('d', 2), C('e', 9, { status: 'resolved' }), C('f', 9, { status: 'pending' }), C('g', 9, { scored: false })],
    S,
    FIRST,
  );
  assert.deepEqual(verdicts(d), { a: 'ranked-out', b: 'selected', c: 'selected', d: 'selected', e: 'ineligible', f: 'ineligible', g: 'not-shortlisted' });
  assert.deepEqual(
    d.filter((x) => x.place > 0).map((x) => x.id),
    ['b', 'c', 'd', 'a'],
  );
});

test('capital: greedy by score within the total; 0 = no cap', () => {
  const d = chooseRanked([C('a', 3), C('b', 2), C('c', 1)], { ...S, perMarket: 100, total: 250 }, FIRST);
  assert.deepEqual(verdicts(d), { a: 'selected', b: 'selected', c: 'capital' });
  assert.equal(keptIds(chooseRanked([C('a', 3), C('b', 2), C('c', 1)], { ...S, perMarket: 100, total: 0 }, FIRST)).length, 3);
});

test('minScore is a floor; a quoted market gets the margin there too', () => {
  const d = chooseRanked(
    [C('a', 0.5), C('b', -0.05), C('c', -0.2)],
    { ...S, minScore: 0, enterMargin: 0.1 },
    { previous: new Set(['b', 'c']), enteredAt: new Map(), nowMs: 0 },
  );
  assert.deepEqual(verdicts(d), { a: 'selected', b: 'kept', c: 'below-min-score' });
});

test('a challenger must beat a quoted market by more than the margin', () => {
  const st = { previous: new Set(['q']), enteredAt: new Map([['q', 0]]), nowMs: 10_000 };
  const s = { ...S, top: 1, enterMargin: 0.1 };
  assert.deepEqual(verdicts(chooseRanked([C('q', 1.0), C('x', 1.09)], s, st)), { q: 'kept', x: 'ranked-out' });
  assert.deepEqual(verdicts(chooseRanked([C('q', 1.0), C('x', 1.11)], s, st)), { x: 'selected', q: 'ranked-out' });
  // without the margin the better one wins at once
  assert.deepEqual(verdicts(chooseRanked([C('q', 1.0), C('x', 1.01)], { ...s, enterMargin: 0 }, st)), { x: 'selected', q: 'ranked-out' });
});

test('minimum hold: a newly selected market stays while younger than minHold, whatever its score; an ineligible one leaves at once', () => {
  const s = { ...S, top: 1, minHoldMs: 600_000 };
  const st = (nowMs: number) => ({ previous: new Set(['new']), enteredAt: new Map([['new', 1_000_000]]), nowMs });
  assert.deepEqual(verdicts(chooseRanked([C('new', 0.1), C('x', 5)], s, st(1_000_000 + 599_999))), { new: 'held', x: 'ranked-out' });
  assert.deepEqual(verdicts(chooseRanked([C('new', 0.1), C('x', 5)], s, st(1_000_000 + 600_000))), { x: 'selected', new: 'ranked-out' });
  assert.deepEqual(verdicts(chooseRanked([C('new', 0.1, { status: 'closed' }), C('x', 5)], s, st(1_000_000))), { new: 'ineligible', x: 'selected' });
  // held markets still respect the total capital (e.g. after a reload lowered it)
  assert.deepEqual(verdicts(chooseRanked([C('new', 0.1)], { ...s, perMarket: 100, total: 50 }, st(1_000_000))), { new: 'capital' });
});

/**
 * Two markets whose scores oscillate around the cut-off (top 1): a and b swap places every refresh by
 * ±0.05. Run 40 refreshes the way selectMarkets does (previous = what was kept, entry time kept while
 * kept) and count how often the kept set changes.
 */
function flips(s: ChooseSettings): number {
  let previous: Set<string> | undefined;
  const entered = new Map<string, number>();
  let changes = 0;
  for (let i = 0; i < 40; i++) {
    const nowMs = i * 60_000;
    const wobble = i % 2 === 0 ? 0.05 : -0.05;
    const d = chooseRanked([C('a', 1 + wobble), C('b', 1 - wobble), C('c', 0.2)], s, { previous, enteredAt: entered, nowMs });
    const kept = new Set(keptIds(d));
    if (previous && [...kept].some((id) => !previous!.has(id))) changes++;
    for (const id of [...entered.keys()]) if (!kept.has(id)) entered.delete(id);
    for (const id of kept) if (!entered.has(id)) entered.set(id, nowMs);
    previous = kept;
  }
  return changes;
}

test('hysteresis prevents flapping: scores oscillating around the cut-off do not toggle the selection', () => {
  const s = { ...S, top: 1 };
  assert.equal(flips({ ...s, enterMargin: 0, minHoldMs: 0 }), 39, 'without hysteresis the selection toggles every refresh');
  assert.equal(flips({ ...s, enterMargin: 0.15, minHoldMs: 0 }), 0, 'the margin alone holds it');
  assert.equal(flips({ ...s, enterMargin: 0, minHoldMs: 600_000 }), 3, 'the hold alone: one change per 10-minute hold, not 39');
});
