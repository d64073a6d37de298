/**
 * The money figures of `ctl status`: the books' own figures as exact strings (a market's rows add up
 * to the account's), the kill switch's figures as its check measures them (read only), and the
 * text an operator reads, which survives an answer of the wrong shape.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Account, type AccountFill } from '../../src/account/account.ts';
import { AccountRisk, DEFAULT_ACCOUNT_LIMITS } from '../../src/account/account-risk.ts';
import { killSwitchFigures, statusBooks } from '../../src/control/status-books.ts';
import { statusText } from '../../src/control/status-text.ts';
import type { Bytes32 } from '../../src/model/order.ts';

const S = 1_000_000;
const M = ('0x' + 'a1'.repeat(32)) as Bytes32;
const N = ('0x' + 'b2'.repeat(32)) as Bytes32;
const Q = ('0x' + 'c3'.repeat(32)) as Bytes32;
const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);

let seq = 0;
const fill = (marketId: Bytes32, side: 0 | 1, price: number, size: number, fee: number): AccountFill => ({
  fillId: `f${++seq}`,
  marketId,
  outcomeIndex: 1,
  side,
  price,
  size,
  fee,
  feeSource: 'venue',
  ts: ++seq,
  origin: 'own',
});

test('statusBooks: the books figures to the unit, per market and for the account; a quoted market with no book shows zeros', () => {
  const a = new Account();
  a.applyFill(fill(M, 0, 333_333, 3 * S, 1)); // buy 3 YES at 0.333333, fee 0.000001
  a.applyFill(fill(M, 1, 500_001, S, 7));
  a.applyFill(fill(N, 0, 480_000, 10 * S, 12_345));
  a.mark(M, 2 * 400_001, NOW); // mid 0.4000005: twice the mid kept exact
  a.mark(N, 2 * 260_000, NOW);
  const s = statusBooks(a, [M, Q]);
  const f = a.figures();
  assert.equal(s.account.fills, 3);
  assert.equal(s.account.pnl, micro(f.total));
  assert.equal(s.account.realised, micro(f.realised));
  assert.equal(s.account.unrealised, micro(f.unrealised));
  assert.equal(s.account.fees, '0.012353');
  assert.equal(s.account.markedAt, new Date(NOW).toISOString());
  assert.deepEqual(
    s.markets.map((m) => [m.market, m.quoted, m.position, m.fills]),
    [
      [M, true, '2.000000', 2],
      [N, false, '10.000000', 1],
      [Q, true, '0.000000', 0],
    ],
  );
  const mp = a.marketPnl(M);
  assert.equal(s.markets[0]!.realised, micro(mp.realised));
  assert.equal(s.markets[0]!.unrealised, micro(mp.unrealised));
  assert.equal(s.markets[1]!.unrealised, '-2.200000');
  // the rows add up to the account, to the unit
  for (const k of ['realised', 'unrealised', 'fees', 'volume', 'pnl'] as const)
    assert.equal(
      s.markets.reduce((t, m) => t + units(m[k]), 0n),
      units(s.account[k]),
      k,
    );
});

test('killSwitchFigures: what check measures, without moving the peak or the day', () => {
  const r = new AccountRisk({ ...DEFAULT_ACCOUNT_LIMITS, maxDrawdown: 50 * S, maxDailyLoss: 0, maxLoss: 70 * S });
  r.check(100 * S, NOW, { requests: 0, errors: 0 });
  const k = killSwitchFigures(r, BigInt(60 * S + 1), NOW);
  assert.deepEqual(k, {
    pnl: '60.000001',
    peak: '100.000000',
    drawdown: '39.999999',
    maxDrawdown: '50.000000',
    dayStartPnl: '100.000000',
    dailyLoss: '39.999999',
    maxDailyLoss: null,
    loss: '-60.000001',
    maxLoss: '70.000000',
  });
  // a PnL above the peak is the peak it would be (drawdown 0), and reading it moves nothing
  assert.equal(killSwitchFigures(r, BigInt(120 * S), NOW).drawdown, '0.000000');
  assert.equal(r.figures().peakPnl, 100 * S);
  // the next day opens at the PnL first seen in it
  assert.equal(killSwitchFigures(r, BigInt(60 * S), NOW + 86_400_000).dailyLoss, '0.000000');
  assert.equal(r.check(49 * S, NOW, { requests: 0, errors: 0 })?.reason, 'KILL_DRAWDOWN');
});

test('statusText: the state, the account, the kill switch and one row per market, from the answer strings', () => {
  const a = new Account();
  a.applyFill(fill(M, 0, 480_000, 10 * S, 5_000));
  a.mark(M, 2 * 280_000, NOW);
  const r = new AccountRisk(DEFAULT_ACCOUNT_LIMITS);
  r.check(0, NOW, { requests: 0, errors: 0 });
  const body = {
    latched: true,
    killSwitch: { reason: 'KILL_DRAWDOWN', detail: 'account drawdown 2.005000 USDC', since: '2026-11-28T12:00:00.000Z' },
    halted: true,
    halt: { reason: 'desk says stop', since: '2026-11-28T12:01:00.000Z', source: 'admin' },
    pauses: [],
    markets: 1,
    retiring: [],
    books: statusBooks(a, [M]),
    killSwitchFigures: killSwitchFigures(r, a.pnl(), NOW),
  };
  const t = statusText(body);
  assert.match(
    t,
    /^state {7}KILL SWITCH LATCHED since 2026-11-28T12:00:00\.000Z: KILL_DRAWDOWN \(account drawdown 2\.005000 USDC\); bookmaker ctl clear-kill --reason TEXT lifts it; /m,
  );
  assert.match(t, /HALTED by the operator since 2026-11-28T12:01:00\.000Z: desk says stop; bookmaker ctl resume lifts it$/m);
  assert.match(t, /^account {5}pnl -2\.005000 USDC \(realised -0\.005000, unrealised -2\.000000 at 2026-11-28T12:00:00\.000Z\)$/m);
  assert.match(t, /fees 0\.005000 USDC, volume 4\.800000 USDC, fills 1/);
  assert.match(t, /^kill switch drawdown 2\.005000 of 100\.000000 max \(peak 0\.000000, pnl -2\.005000\)$/m);
  assert.match(t, /^ {12}day's loss 2\.005000, no limit \(the day began at 0\.000000\)$/m);
  assert.match(t, /^ {12}loss since inception 2\.005000, no limit$/m);
  assert.match(t, new RegExp(`^${M} +yes +10\\.000000 +-0\\.005000 +-2\\.000000 +-2\\.005000 +1 +4\\.800000 +0\\.005000$`, 'm'));
  // a halt from an earlier run names the record a start read it from
  const fromFile = statusText({
    ...body,
    latched: false,
    halt: { reason: 'desk says stop', since: '2026-11-28T12:01:00.000Z', source: 'admin', from: 'latch file' },
  });
  assert.match(fromFile, /HALTED by the operator since 2026-11-28T12:01:00\.000Z: desk says stop, in the latch file only; bookmaker ctl resume lifts it$/m);
  // the bot's own hold (the ledger cannot be written) is not "quoting"
  const held = statusText({ ...body, latched: false, halted: false, holds: [{ hold: 'ledger', reason: 'the ledger file is gone' }] });
  assert.match(held, /^state {7}NOT QUOTING \(ledger\): the ledger file is gone$/m);
  // starting: the phase and the held halt, no figures yet
  const st = statusText({ starting: true, phase: 'venue', since: 'x', halted: true, halt: { reason: null, persisted: false } });
  assert.match(st, /starting: venue since x/);
  assert.match(st, /held for when it runs \(not written to the ledger: this run only\)/);
  // an answer of another shape: text, never a throw
  for (const odd of [null, 'x', [], { books: 7, killSwitchFigures: [], pauses: 'no' }, { books: { account: { pnl: {} }, markets: [null, 5] } }])
    assert.equal(typeof statusText(odd), 'string');
});

function micro(v: bigint): string {
  const neg = v < 0n;
  const a = neg ? -v : v;
  return `${neg ? '-' : ''}${a / 1_000_000n}.${(a % 1_000_000n).toString().padStart(6, '0')}`;
}
function units(s: string): bigint {
  const neg = s.startsWith('-');
  const [i, f] = (neg ? s.slice(1) : s).split('.') as [string, string];
  const v = BigInt(i) * 1_000_000n + BigInt(f);
  return neg ? -v : v;
}
