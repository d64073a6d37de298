/**
 * The local exchange's auto-claim (src/sim/auto-claim.ts) on a manual clock: `afterMs` after a market
 * resolves, every wallet holding its tokens (winning, losing-only, both sides) is claimed with `how: 'auto'`;
 * the collateral gains exactly ⌊yes·payoutYes/1e6⌋ + ⌊no·payoutNo/1e6⌋, the claimable list is empty after,
 * and the portfolio answers show the rows `autoclaimed` (the losing-only wallet's too, under kind=lost).
 * Journalled: a crash's files replay the claims, and a pass after the restart claims nothing again; files
 * cut before the claim was written claim it once at the next pass.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Bytes32 } from '../../src/model/order.ts';
import { createAutoClaim, startAutoClaim, type AutoClaim } from '../../src/sim/auto-claim.ts';
import { claimOf } from '../../src/sim/claims.ts';
import { createLocalExchange, type LocalExchange } from '../../src/sim/local-exchange.ts';
import { addressOf } from '../../src/sim/wire-ids.ts';
import { manualClock, startHarness, type Harness } from './account/harness.ts';
import { createSigner } from '../../src/exchange/signing/signer.ts';
import { TESTNET } from '../../src/exchange/chains.ts';

const ONE = 1_000_000n;
const AFTER = 30_000;
const floorPay = (yes: bigint, no: bigint, payoutYes: bigint): bigint => (yes * payoutYes) / ONE + (no * (ONE - payoutYes)) / ONE;

/** `wallet` mints `sets` complete sets in `market` and gives `noTo` `noGiven` of its NO tokens (engine commands, journalled as such). */
function holdings(ex: LocalExchange, market: Bytes32, wallet: string, sets: bigint, noTo: string, noGiven: bigint): void {
  const host = ex.state.engine;
  const m = host.marketIndex(market)!;
  const a = host.ensureTrader(addressOf(wallet)!);
  const b = host.ensureTrader(addressOf(noTo)!);
  assert.deepEqual(host.apply({ type: 'mintSets', trader: a, market: m, amount: sets }), { ok: true });
  assert.deepEqual(host.apply({ type: 'transferTokens', from: a, to: b, market: m, outcome: 0, amount: noGiven }), { ok: true });
}

const pos = (ex: LocalExchange, w: string, m: Bytes32) => {
  const p = ex.state.engine.position(w, m)!;
  return [p.yes, p.no];
};
const cash = (ex: LocalExchange, w: string) => ex.state.engine.balance(w)!.collateral;

let h: Harness;
let ac: AutoClaim;
let split: Bytes32;
let yesWins: Bytes32;
let open: Bytes32;

before(async () => {
  h = await startHarness({ apiKeys: [{ key: 'both-key' }, { key: 'loser-key' }, { key: 'idle-key' }], markets: 3 });
  [split, yesWins, open] = [...h.ex.state.stores.markets.values()].map((m) => m.id) as [Bytes32, Bytes32, Bytes32];
  ac = createAutoClaim(h.ex, { afterMs: AFTER });
});
after(() => h.close());

test('afterMs after the resolution every holder is claimed: exact payouts, claimable list empty, portfolio autoclaimed', async () => {
  const both = h.walletOf('both-key');
  const loser = h.walletOf('loser-key');
  const idle = h.walletOf('idle-key');
  // both-key holds YES and NO in each market; loser-key only NO (the losing side of yesWins)
  holdings(h.ex, split, both, 10_000_001n, loser, 4_000_003n);
  holdings(h.ex, yesWins, both, 7_777_777n, loser, 7_777_777n);
  holdings(h.ex, open, both, 1_000_000n, loser, 1_000_000n);
  const cash0 = { both: cash(h.ex, both), loser: cash(h.ex, loser), idle: cash(h.ex, idle) };
  const t0 = h.clock.now();
  h.ex.state.services.resolveMarket(split, 333_333, t0, 'test: split');
  h.ex.state.services.resolveMarket(yesWins, 1_000_000, t0, 'test: YES');

  // before the delay: nothing claimed, both listed claimable
  h.clock.advance(AFTER - 1);
  ac.step();
  assert.deepEqual(ac.counts, { markets: 0, claims: 0, paid: 0n });
  assert.deepEqual(pos(h.ex, both, split), [10_000_001n, 5_999_998n]);
  const listed = await h.call('GET', `/portfolio/${both}/claimable`, { key: 'both-key' });
  assert.deepEqual([...new Set(listed.body.positions.map((p: { marketId: string }) => p.marketId))].sort(), [split, yesWins].sort());

  h.clock.advance(1);
  ac.step();
  // both-key twice (split, yesWins), loser-key twice (split, yesWins: the losing side, redeemed for 0); the open market untouched
  assert.equal(ac.counts.markets, 2);
  assert.equal(ac.counts.claims, 4);
  const wantBoth = floorPay(10_000_001n, 5_999_998n, 333_333n) + floorPay(7_777_777n, 0n, ONE);
  const wantLoser = floorPay(0n, 4_000_003n, 333_333n) + floorPay(0n, 7_777_777n, ONE);
  assert.equal(wantBoth, 3_333_330n + 4_000_000n + 7_777_777n, 'the floors, spelt out');
  assert.equal(wantLoser, 2_666_670n);
  assert.equal(cash(h.ex, both) - cash0.both, wantBoth);
  assert.equal(cash(h.ex, loser) - cash0.loser, wantLoser);
  assert.equal(cash(h.ex, idle), cash0.idle, 'a wallet holding nothing is not touched');
  assert.equal(ac.counts.paid, wantBoth + wantLoser);
  for (const w of [both, loser]) for (const m of [split, yesWins]) assert.deepEqual(pos(h.ex, w, m), [0n, 0n]);
  assert.deepEqual(pos(h.ex, both, open), [1_000_000n, 0n], 'an unresolved market keeps its tokens');
  assert.equal(claimOf(h.ex.state, addressOf(loser)!, yesWins)?.auto, true);

  for (const [w, k] of [
    [both, 'both-key'],
    [loser, 'loser-key'],
  ] as const) {
    assert.deepEqual((await h.call('GET', `/portfolio/${w}/claimable`, { key: k })).body.positions, [], `${k}: nothing claimable after`);
    assert.equal((await h.call('GET', `/portfolio/${w}?kind=claimable`, { key: k })).body.portfolio.length, 0);
  }
  const rows = (w: string, k: string, q: string) =>
    h
      .call('GET', `/portfolio/${w}${q}`, { key: k })
      .then((r) => r.body.portfolio.map((x: Record<string, unknown>) => [x.outcomeIndex, x.balance, x.claimState, x.tokensRedeemed, x.claimableAmount]));
  assert.deepEqual(await rows(both, 'both-key', `?marketId=${split}`), [
    [1, '0', 'autoclaimed', '10000001', '0'],
    [0, '0', 'autoclaimed', '5999998', '0'],
  ]);
  // the losing-only wallet: redeemed for 0, shown autoclaimed under kind=lost (and all), none under won
  assert.deepEqual(await rows(loser, 'loser-key', `?marketId=${yesWins}`), [[0, '0', 'autoclaimed', '7777777', '0']]);
  assert.deepEqual(await rows(loser, 'loser-key', `?kind=lost`), [[0, '0', 'autoclaimed', '7777777', '0']]);
  assert.ok(!(await rows(loser, 'loser-key', `?kind=won`)).some((r: unknown[]) => r[3] === '7777777'));

  // later passes claim nothing again
  h.clock.advance(60_000);
  ac.step();
  assert.equal(ac.counts.claims, 4);
  assert.deepEqual(h.ex.state.engine.engine.checkInvariants(), []);
});

test('startAutoClaim runs on the exchange timer; a bad delay is refused', async () => {
  assert.throws(() => createAutoClaim(h.ex, { afterMs: -1 }), /afterMs/);
  assert.throws(() => createAutoClaim(h.ex, { afterMs: 1.5 }), /afterMs/);
  assert.throws(() => createAutoClaim(h.ex, { afterMs: Number.NaN }), /afterMs/);
  const timers: number[] = [];
  const fake = { ...h.ex, every: (ms: number) => void timers.push(ms) } as LocalExchange;
  startAutoClaim(fake, { afterMs: 30_000 });
  startAutoClaim(fake, { afterMs: 0 });
  startAutoClaim(fake, { afterMs: 100 });
  assert.deepEqual(timers, [500, 20, 100]);
});

/** A fresh exchange on `dir/state` with the test's keys, on `clock`. */
function exchangeAt(dir: string, clock: ReturnType<typeof manualClock>, sub: string): LocalExchange {
  return createLocalExchange({
    seed: 3,
    markets: 2,
    clock,
    expirySweepMs: 0,
    stateFile: join(dir, sub, 'state'),
    apiKeys: [{ key: 'a' }, { key: 'b' }],
    initialCollateral: 1_000_000_000n,
  });
}

/** The files as a kill -9 leaves them (no checkpoint): copied from `live` to `name`. */
function crashCopy(dir: string, name: string): void {
  mkdirSync(join(dir, name));
  for (const n of readdirSync(join(dir, 'live'))) copyFileSync(join(dir, 'live', n), join(dir, name, n));
}

test('journalled: a crash after the claim replays it and a pass claims nothing again; a crash before it claims once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'auto-claim-'));
  const clock = manualClock();
  mkdirSync(join(dir, 'live'));
  const ex = exchangeAt(dir, clock, 'live');
  try {
    const base = await ex.start(0);
    const [m1, m2] = [...ex.state.stores.markets.values()].map((m) => m.id) as [Bytes32, Bytes32];
    const a = ex.state.keys.get('a')!.wallet;
    const b = ex.state.keys.get('b')!.wallet;
    holdings(ex, m1, a, 3_000_001n, b, 3_000_001n);
    const cash0 = [cash(ex, a), cash(ex, b)];
    ex.state.services.resolveMarket(m1, 250_001, clock.now(), 'test');
    /** an acknowledged request: every record before it is on disk once it is answered */
    const signer = createSigner({ privateKey: ex.state.keys.get('a')!.privateKey!, chain: TESTNET });
    const sync = async () => {
      const r = await fetch(`${base}/orders`, {
        method: 'POST',
        headers: { authorization: 'Bearer a', 'content-type': 'application/json' },
        body: JSON.stringify(signer.signOrder({ marketId: m2, outcomeIndex: 1, side: 0, price: 100_000, size: 1_000_000 })),
      });
      assert.equal(r.status, 201);
    };
    const ac = createAutoClaim(ex, { afterMs: 1_000 });
    await sync();
    crashCopy(dir, 'before');
    clock.advance(1_000);
    ac.step();
    assert.equal(ac.counts.claims, 2);
    const paid = [cash(ex, a) - cash0[0]!, cash(ex, b) - cash0[1]!];
    assert.deepEqual(paid, [floorPay(3_000_001n, 0n, 250_001n), floorPay(0n, 3_000_001n, 250_001n)]);
    await sync();
    crashCopy(dir, 'after');

    // the claims' records replayed: the same balances and claim records; a pass after the restart claims nothing
    const back = exchangeAt(dir, clock, 'after');
    try {
      assert.ok(back.restoredRecords > 0, 'restored from the journal, not a snapshot');
      assert.deepEqual([cash(back, a), cash(back, b)], [cash(ex, a), cash(ex, b)]);
      assert.deepEqual(pos(back, a, m1), [0n, 0n]);
      assert.deepEqual(claimOf(back.state, addressOf(b)!, m1), claimOf(ex.state, addressOf(b)!, m1));
      const again = createAutoClaim(back, { afterMs: 1_000 });
      again.step();
      assert.deepEqual(again.counts, { markets: 1, claims: 0, paid: 0n }, 'no claim runs twice');
      assert.deepEqual([cash(back, a), cash(back, b)], [cash(ex, a), cash(ex, b)]);
    } finally {
      await back.close();
    }
    // cut before the claims were written: the next pass claims them, once, at the same payouts
    const early = exchangeAt(dir, clock, 'before');
    try {
      assert.deepEqual(pos(early, a, m1), [3_000_001n, 0n]);
      const once = createAutoClaim(early, { afterMs: 1_000 });
      once.step();
      once.step();
      assert.equal(once.counts.claims, 2);
      assert.deepEqual([cash(early, a), cash(early, b)], [cash(ex, a), cash(ex, b)]);
      assert.deepEqual(early.state.engine.engine.checkInvariants(), []);
    } finally {
      await early.close();
    }
  } finally {
    await ex.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
