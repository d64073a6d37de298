/** The account's kill switch: figures kept once per account; the trading day's zone. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AccountRisk, DEFAULT_ACCOUNT_LIMITS, type AccountLimits } from '../../src/account/account-risk.ts';
import { DAY_MS, tradingDay } from '../../src/account/trading-day.ts';

const S = 1_000_000;
const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);
const TODAY = Math.floor(NOW / DAY_MS);
const OFF: AccountLimits = { ...DEFAULT_ACCOUNT_LIMITS, maxDrawdown: 0, maxErrorRate: 0 };
const quiet = { requests: 0, errors: 0 };
const lim = (o: Partial<AccountLimits>): AccountLimits => ({ ...OFF, ...o });

test('drawdown from the PEAK account PnL, latched once fired', () => {
  const r = new AccountRisk(lim({ maxDrawdown: 50 * S }));
  assert.equal(r.check(0, NOW, quiet), null);
  assert.equal(r.check(100 * S, NOW, quiet), null);
  assert.equal(r.figures().peakPnl, 100 * S);
  assert.equal(r.check(51 * S, NOW, quiet), null);
  // +40 since start is a 60 drawdown from the peak: kill, although PnL is positive
  const k = r.check(40 * S, NOW, quiet);
  assert.equal(k?.reason, 'KILL_DRAWDOWN');
  assert.match(k!.detail, /account drawdown 60\.000000 USDC from peak 100\.000000 exceeds account\.maxDrawdown 50\.000000/);
  assert.equal(r.check(200 * S, NOW, quiet)?.reason, 'KILL_DRAWDOWN', 'latched after recovery');
  r.reopen(200 * S, NOW);
  assert.equal(r.check(160 * S, NOW, quiet), null, 'an operator clear measures from the PnL then');
});

test("drawdown measures from a peak carried in (the ledger's), not from the first PnL seen", () => {
  assert.equal(new AccountRisk(lim({ maxDrawdown: 50 * S }), { peakPnl: 100 * S }).check(40 * S, NOW, quiet)?.reason, 'KILL_DRAWDOWN');
  assert.equal(new AccountRisk(lim({ maxDrawdown: 50 * S })).check(40 * S, NOW, quiet), null);
});

test('daily loss: from the PnL when the trading day began, carried in (restarts), and across many ticks', () => {
  const r = new AccountRisk(lim({ maxDailyLoss: 5 * S }), { day: TODAY, dayStartPnl: 10 * S });
  for (let pnl = 10; pnl >= 5; pnl--) assert.equal(r.check(pnl * S, NOW + (10 - pnl) * 1000, quiet), null);
  assert.equal(r.check(5 * S - 1, NOW + 6000, quiet)?.reason, 'KILL_DAILY_LOSS');
  // without the carried opening (a fresh start) the same PnL would not fire
  assert.equal(new AccountRisk(lim({ maxDailyLoss: 5 * S })).check(4 * S, NOW, quiet), null);
});

test("a new trading day opens at the PnL first seen in it, not at an old day's", () => {
  const r = new AccountRisk(lim({ maxDailyLoss: 5 * S }), { day: TODAY - 20, dayStartPnl: 20 * S });
  assert.equal(r.check(12 * S, NOW, quiet), null);
  assert.deepEqual(r.figures(), { peakPnl: 12 * S, day: TODAY, dayStartPnl: 12 * S });
});

test('loss since inception and the venue error rate', () => {
  const r = new AccountRisk(lim({ maxLoss: 100 * S }));
  assert.equal(r.check(-100 * S, NOW, quiet), null);
  assert.equal(r.check(-100 * S - 1, NOW, quiet)?.reason, 'KILL_LOSS');
  const e = new AccountRisk(lim({ maxErrorRate: 0.2, minRequestsForErrorRate: 20 }));
  assert.equal(e.check(0, NOW, { requests: 10, errors: 9 }), null);
  assert.equal(e.check(0, NOW, { requests: 100, errors: 20 }), null);
  assert.equal(e.check(0, NOW, { requests: 100, errors: 21 })?.reason, 'KILL_ERROR_RATE');
});

test('limits off (0) never fire', () => {
  assert.equal(new AccountRisk(OFF, { peakPnl: 1e9 * S, day: TODAY, dayStartPnl: 1e9 * S }).check(-1e9 * S, NOW, { requests: 100, errors: 100 }), null);
});

test('the trading day follows account.dayStartsAt: UTC, an offset, an IANA zone with DST', () => {
  const utc = tradingDay('UTC');
  assert.equal(utc.of(NOW), TODAY);
  assert.equal(utc.startOf(TODAY), TODAY * DAY_MS);
  // 23:30 UTC is already tomorrow at +02:00
  const late = Date.UTC(2026, 10, 28, 23, 30);
  assert.equal(tradingDay('+02:00').of(late), TODAY + 1);
  assert.equal(tradingDay('-05:00').of(Date.UTC(2026, 10, 29, 3, 0)), TODAY, '03:00 UTC is still the 28th in New York winter time');
  const ny = tradingDay('America/New_York');
  assert.equal(ny.of(Date.UTC(2026, 10, 29, 4, 59)), TODAY);
  assert.equal(ny.of(Date.UTC(2026, 10, 29, 5, 0)), TODAY + 1, 'midnight EST is 05:00 UTC');
  assert.equal(ny.startOf(TODAY + 1), Date.UTC(2026, 10, 29, 5, 0));
  // summer time: midnight EDT is 04:00 UTC
  const july = Math.floor(Date.UTC(2026, 6, 1) / DAY_MS);
  assert.equal(ny.startOf(july), Date.UTC(2026, 6, 1, 4, 0));
  assert.equal(ny.of(Date.UTC(2026, 6, 1, 3, 59)), july - 1);
  assert.throws(() => tradingDay('Mars/Olympus'), /not an IANA time zone or a UTC offset/);
});

test('the kernel: a clear measures the peak and the day afresh, latched or not', async () => {
  const { QuotingKernel } = await import('../../src/kernel/quoting-kernel.ts');
  const { StateStore } = await import('../../src/state/store.ts');
  const { FakeVenue } = await import('../orders/fake-venue.ts');
  const { ManualClock } = await import('../exchange/stream/manual-clock.ts');
  const clock = new ManualClock(NOW);
  const k = new QuotingKernel({
    clock,
    venue: new FakeVenue(),
    store: new StateStore(),
    markets: [],
    requoteIntervalMs: 0,
    housekeepingMs: 0,
    initialRisk: { peakPnl: 50 * S, day: TODAY - 1, dayStartPnl: 40 * S },
  });
  assert.equal(k.clearKill(), false, 'not latched');
  assert.deepEqual(k.riskFigures(), { peakPnl: 0, day: TODAY, dayStartPnl: 0 });
  k.stop();
});
