import { test } from 'node:test';
import assert from 'node:assert/strict';
import bands from '../../strategies/bands/index.ts';
import { ConfigError } from '../../src/model/errors.ts';
import { makeView, NOW, S } from '../strategy/make-view.ts';
import { viewBook } from '../../src/strategy/view-book.ts';
import type { WorkingQuote } from '../../src/strategy/types.ts';

const cfg = bands.parseConfig(
  {
    fair: 'mid',
    bands: [
      { minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: 10 },
      { minMargin: 0.03, targetMargin: 0.05, maxMargin: 0.08, size: 25 },
    ],
  },
  'params',
);

const own = (side: 'bid' | 'ask', price: number, size: number, level: number, state: WorkingQuote['state'] = 'working'): WorkingQuote => ({
  side,
  price,
  size,
  level,
  state,
  outcomeIndex: 1,
  venueSide: side === 'bid' ? 'buy' : 'sell',
  placedAt: NOW - 1000,
});

/** The quotes of a flat book at 50¢ with no own orders: each band's target a side. */
const TARGETS = ['bid 480000 10 0', 'ask 520000 10 0', 'bid 450000 25 1', 'ask 550000 25 1'];

test('bands: quote table', () => {
  const rows: { name: string; view: Parameters<typeof bands.quote>[0]; want: string[] | null }[] = [
    { name: 'flat book at 50, no orders: targets', view: makeView(), want: TARGETS },
    {
      name: 'own bid inside band 0 is kept unchanged, missing ask placed',
      view: makeView({ quotes: [own('bid', 470_000, 7 * S, 0)] }),
      want: ['bid 470000 7 0', ...TARGETS.slice(1)],
    },
    { name: 'own ask drifted outside band 0 is replaced at target', view: makeView({ quotes: [own('ask', 540_000, 10 * S, 0)] }), want: TARGETS },
    { name: 'cancelling quotes are not kept', view: makeView({ quotes: [own('bid', 480_000, 10 * S, 0, 'cancelling')] }), want: TARGETS },
    {
      name: 'off-tick mid snaps bids down and asks up',
      view: makeView({ bids: [{ price: 430_000, size: S }], asks: [{ price: 460_000, size: S }] }),
      want: ['bid 420000 10 0', 'ask 470000 10 0', 'bid 390000 25 1', 'ask 500000 25 1'],
    },
    {
      name: 'near the floor: a bid clamped inside its band minimum margin is dropped',
      view: makeView({ bids: [{ price: 10_000, size: S }], asks: [{ price: 30_000, size: S }] }),
      want: ['bid 10000 10 0', 'ask 40000 10 0', 'ask 70000 25 1'],
    },
    { name: 'one-sided book: pull', view: makeView({ bids: [{ price: 400_000, size: S }], asks: [] }), want: null },
    { name: 'no book: pull', view: makeView({ book: null }), want: null },
  ];
  for (const r of rows) {
    const got = bands.quote(r.view, cfg);
    // each quote as 'side price shares level'
    const flat = got && got.map((q) => `${q.side} ${q.price} ${q.size / S} ${q.level ?? -1}`);
    assert.deepEqual(flat, r.want, r.name);
  }
});

test('bands: microprice fair and inventory skew shift the targets', () => {
  const c = bands.parseConfig({ fair: 'microprice', inventorySkew: 0.001, bands: [{ minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: 1 }] }, 'p');
  // bid size 300 vs ask 100: microprice = (48·100 + 52·300)/400 = 51¢; long 10 shares: −1¢ → 50¢
  const v = makeView({ bids: [{ price: 480_000, size: 300 * S }], asks: [{ price: 520_000, size: 100 * S }], net: 10 * S });
  assert.deepEqual(
    bands.quote(v, c)!.map((q) => q.price),
    [480_000, 520_000],
  );
});

test('bands: bands smaller than the market minimum size are skipped', () => {
  const v = makeView({ minSize: 20 * S });
  assert.deepEqual(
    bands.quote(v, cfg)!.map((q) => q.level),
    [1, 1],
  );
});

test('bands: config errors name the path', () => {
  const bad: [unknown, RegExp][] = [
    [{ bands: [] }, /^p\.bands: expected a list of at least 1/],
    [{ bands: [{ minMargin: 0.02, targetMargin: 0.01, maxMargin: 0.03, size: 1 }] }, /^p\.bands\[0\]\.targetMargin: expected a number in \[0\.02, 0\.5\)/],
    [
      { bands: [{ minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: 'ten' }] },
      /^p\.bands\[0\]\.size: expected a number in \(0, 1000000000\], got "ten"/,
    ],
    [{ bands: [{ minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: 1, colour: 'red' }] }, /^p\.bands\[0\]\.colour: expected a known key/],
    [
      {
        bands: [
          { minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.05, size: 1 },
          { minMargin: 0.04, targetMargin: 0.06, maxMargin: 0.07, size: 1 },
        ],
      },
      /^p\.bands\[1\]\.minMargin: expected a margin >= the previous band's maxMargin \(0\.05\), got 0\.04/,
    ],
    [{ fair: 'last' }, /^p\.fair: expected one of mid, microprice, got "last"/],
    [{ fairFrom: 'mine' }, /^p\.fairFrom: expected one of others, book, got "mine"/],
    ['wide', /^p: expected a mapping, got "wide"/],
  ];
  for (const [raw, re] of bad) {
    assert.throws(
      () => bands.parseConfig(raw, 'p'),
      (e: unknown) => e instanceof ConfigError && re.test(e.message),
      JSON.stringify(raw),
    );
  }
  assert.equal(bands.parseConfig(undefined, 'p').bands.length, 2, 'defaults apply');
});

test('bands: own quotes at the touch no longer move the fair price (default fairFrom: others)', () => {
  // the default config: fair microprice from the others' book; one band 1/2/3¢ × 10
  const c = bands.parseConfig({ bands: [{ minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: 10 }] }, 'p');
  const asBook = bands.parseConfig({ fairFrom: 'book', bands: [{ minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: 10 }] }, 'p');
  assert.equal(c.fairFrom, 'others', 'the default');
  // others: bid 48¢ × 10, ask 52¢ × 30: microprice (48·30 + 52·10)/40 = 49¢ → targets 47¢ / 51¢
  type L = { price: number; size: number };
  const others = { bids: [{ price: 480_000, size: 10 * S }], asks: [{ price: 520_000, size: 30 * S }] };
  const rows: { name: string; quotes: WorkingQuote[]; bids: L[]; asks: L[]; want: string[] }[] = [
    {
      // whole book: bid 48 × 30 → microprice 50¢: the old fair; the band keeps our bid either way
      name: 'own bid joins the best bid',
      quotes: [own('bid', 480_000, 20 * S, 0)],
      bids: [{ price: 480_000, size: 30 * S }],
      asks: others.asks,
      want: ['bid 480000 20', 'ask 510000 10'],
    },
    {
      // whole book: microprice (49·30 + 52·10)/40 = 49.75¢
      name: 'own bid improves the touch',
      quotes: [own('bid', 490_000, 10 * S, 0)],
      bids: [{ price: 490_000, size: 10 * S }, ...others.bids],
      asks: others.asks,
      want: ['bid 470000 10', 'ask 510000 10'],
    },
    {
      // whole book: microprice (48·30 + 51·10)/40 = 48.75¢
      name: 'own ask improves the touch',
      quotes: [own('ask', 510_000, 30 * S, 0)],
      bids: others.bids,
      asks: [{ price: 510_000, size: 30 * S }, ...others.asks],
      want: ['bid 470000 10', 'ask 510000 30'],
    },
    {
      // in flight: the venue book already shows it
      name: 'own in-flight bid at the touch, both sides quoted',
      // whole book: microprice (49·40 + 52·30)/70 ≈ 50.29¢, which would keep the bid at 49¢
      quotes: [own('bid', 490_000, 30 * S, 0, 'in-flight'), own('ask', 520_000, 10 * S, 0)],
      bids: [{ price: 490_000, size: 30 * S }, ...others.bids],
      asks: [{ price: 520_000, size: 40 * S }],
      want: ['bid 470000 10', 'ask 520000 10'],
    },
  ];
  // each quote as 'side price shares'
  const flat = (x: ReturnType<typeof bands.quote>) => x && x.map((q) => `${q.side} ${q.price} ${q.size / S}`);
  for (const r of rows) {
    const whole = makeView({ book: viewBook(r.bids, r.asks, NOW - 100, NOW - 100), quotes: r.quotes });
    const alone = makeView({ book: viewBook(others.bids, others.asks, NOW - 100, NOW - 100), quotes: r.quotes });
    assert.deepEqual(flat(bands.quote(whole, c)), r.want, r.name);
    // the others' book given as the whole book (nothing of ours in it): the same quotes
    assert.deepEqual(flat(bands.quote(whole, c)), flat(bands.quote(alone, asBook)), `${r.name}: the same quotes as on the others' book alone`);
    assert.notDeepEqual(flat(bands.quote(whole, asBook)), r.want, `${r.name}: fairFrom: book still follows the own quote`);
  }
});

test('bands: the bot alone on one side of the book has no fair price to quote around', () => {
  const c = bands.parseConfig({ bands: [{ minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: 10 }] }, 'p');
  const v = makeView({ bids: [{ price: 480_000, size: 10 * S }], asks: [{ price: 520_000, size: 10 * S }], quotes: [own('ask', 520_000, 10 * S, 0)] });
  assert.equal(bands.quote(v, c), null);
  assert.ok(bands.quote(v, { ...c, fairFrom: 'book' }) !== null);
});
