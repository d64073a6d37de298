/** The kill switch's loss limits (issue 16): drawdown from peak, loss over the UTC day, loss since inception. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DAY_MS, killSwitch } from '../../src/risk/kill-switch.ts';
import { INITIAL_RISK_STATE, type RiskState } from '../../src/risk/types.ts';
import { makeView, NOW, S } from '../strategy/make-view.ts';
import { limits } from './limits.ts';

const view = (pnl: number, now = NOW) => makeView({ now, account: { collateral: 0n, pnl, worstCasePosition: 0, worstCaseNotional: 0 } });
const TODAY = Math.floor(NOW / DAY_MS);

test('daily loss: measured from the PnL when the UTC day began, carried in the state (and so across restarts)', () => {
  const lim = limits({ maxDailyLoss: 5 * S });
  // a restart mid-day: the ledger says the day opened at +10; now at +6 (lost 4): still quoting
  const seeded: RiskState = { ...INITIAL_RISK_STATE, day: TODAY, dayStartPnl: 10 * S };
  const a = killSwitch(view(6 * S), lim, seeded);
  assert.equal(a.killed, null);
  assert.equal(a.dayStartPnl, 10 * S);
  // one more USDC and a cent: 5.01 lost today
  const b = killSwitch(view(4 * S - 10_000), lim, { ...seeded, peakPnl: a.peakPnl });
  assert.equal(b.killed, 'KILL_DAILY_LOSS');
  // without the carried opening (a fresh in-memory start) the same PnL would not fire: the limit needs the ledger
  assert.equal(killSwitch(view(4 * S - 10_000), lim, INITIAL_RISK_STATE).killed, null);
});

test('daily loss: a new UTC day opens at the PnL first seen in it', () => {
  const lim = limits({ maxDailyLoss: 5 * S });
  const yesterday: RiskState = { ...INITIAL_RISK_STATE, day: TODAY - 1, dayStartPnl: 20 * S };
  const r = killSwitch(view(12 * S), lim, yesterday);
  assert.equal(r.killed, null, 'yesterday\'s loss does not count today');
  assert.equal(r.day, TODAY);
  assert.equal(r.dayStartPnl, 12 * S);
});

test('loss since inception: the account PnL itself below -maxLoss', () => {
  const lim = limits({ maxLoss: 100 * S });
  assert.equal(killSwitch(view(-100 * S), lim, INITIAL_RISK_STATE).killed, null);
  const r = killSwitch(view(-100 * S - 1), lim, INITIAL_RISK_STATE);
  assert.equal(r.killed, 'KILL_LOSS');
  assert.match(r.detail, /since inception/);
});

test('drawdown measures from a peak carried in (the ledger\'s), not from the first PnL seen', () => {
  const lim = limits({ maxDrawdown: 50 * S });
  const r = killSwitch(view(40 * S), lim, { ...INITIAL_RISK_STATE, peakPnl: 100 * S });
  assert.equal(r.killed, 'KILL_DRAWDOWN');
  assert.equal(killSwitch(view(40 * S), lim, INITIAL_RISK_STATE).killed, null);
});

test('limits off (0) never fire', () => {
  assert.equal(killSwitch(view(-1e9 * S), limits({ maxDrawdown: 0, maxDailyLoss: 0, maxLoss: 0 }), { ...INITIAL_RISK_STATE, peakPnl: 1e9 * S, day: TODAY, dayStartPnl: 1e9 * S }).killed, null);
});

test('the gate carries the day\'s opening PnL through quoting ticks, so a loss spread over many ticks still counts', async () => {
  const { applyRisk } = await import('../../src/risk/apply-risk.ts');
  const lim = limits({ maxDailyLoss: 5 * S });
  let st: RiskState = INITIAL_RISK_STATE;
  // a quoting tick at +10, then the PnL slides a USDC per tick, each tick quoting
  for (let pnl = 10; pnl >= 5; pnl--) {
    const r = applyRisk(view(pnl * S, NOW + (10 - pnl) * 1000), [{ side: 'bid', price: 470_000, size: S, level: 0 }], lim, st);
    assert.equal(r.action, 'quote', `still quoting at ${pnl}`);
    assert.equal(r.state.dayStartPnl, 10 * S, 'the opening survives a quoting tick');
    st = r.state;
  }
  const r = applyRisk(view(5 * S - 1, NOW + 6000), [{ side: 'bid', price: 470_000, size: S, level: 0 }], lim, st);
  assert.equal(r.action, 'kill');
  assert.equal(r.denied[0]?.reason, 'KILL_DAILY_LOSS');
});
