/**
 * No sequence of API calls creates or destroys collateral, the testnet faucet aside: generated
 * sequences of faucet mints (to the wallet and to Holdings), Permit2 deposits (valid, replayed,
 * overdrawn, forged), orders that cross between two wallets (mints, merges and transfers of complete
 * sets, fees), cancels and cancel-replaces. After every call, the USDC of the whole exchange (the
 * engine's deposits, which its invariants tie to trader balances + fees + set backing, plus every
 * wallet's USDC outside Holdings) equals the start plus what the faucet answered 200 for.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { MatchingEngine } from '../../src/engine/matching-engine.ts';
import { walletUsdc } from '../../src/sim/routes/account/wallet-usdc.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { startHarness, type Harness } from './account/harness.ts';
import { mustAddress } from '../../src/sim/wire-ids.ts';

let h: Harness;
const KEYS = ['alice', 'bob'] as const;

before(async () => {
  h = await startHarness({ apiKeys: KEYS.map((key) => ({ key })), markets: 2, accounts: { faucet: 'wallet', mintsPerHour: 1_000_000 } });
});
after(() => h.close());

/** All the USDC the exchange knows of: in Holdings (the engine's deposits) and in wallets. */
function totalUsdc(): bigint {
  const engine = h.ex.state.engine.engine;
  assert.ok(engine instanceof MatchingEngine);
  const engineTotal = BigInt(engine.exportState().ledger.total);
  let wallets = 0n;
  for (const k of KEYS) wallets += walletUsdc(h.ex.state, mustAddress(h.walletOf(k), 'wallet'));
  return engineTotal + wallets;
}

const who = fc.constantFrom(...KEYS);
const op = fc.oneof(
  fc.record({ t: fc.constant('mint' as const), who, cents: fc.integer({ min: 1, max: 5_000 }) }),
  fc.record({ t: fc.constant('deposit' as const), who, units: fc.bigInt({ min: 1n, max: 80_000_000n }), replay: fc.boolean(), forged: fc.boolean() }),
  fc.record({
    t: fc.constant('order' as const),
    who,
    market: fc.integer({ min: 0, max: 1 }),
    outcomeIndex: fc.constantFrom(0 as const, 1 as const),
    side: fc.constantFrom(0 as const, 1 as const),
    price: fc.integer({ min: 1, max: 99 }).map((c) => c * 10_000),
    size: fc.integer({ min: 1, max: 30 }).map((s) => s * 1_000_000),
  }),
  fc.record({ t: fc.constant('cancel' as const), pick: fc.nat(), replace: fc.boolean(), price: fc.integer({ min: 1, max: 99 }).map((c) => c * 10_000) }),
);

test('no sequence of API calls creates or destroys collateral, outside the faucet', async () => {
  const markets = [...h.ex.state.stores.markets.values()].map((m) => m.id as Bytes32);
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), async (ops) => {
      let expected = totalUsdc();
      const placed: { key: (typeof KEYS)[number]; nonce: Bytes32; marketId: Bytes32; outcomeIndex: 0 | 1; side: 0 | 1; size: number }[] = [];
      let lastPermit: { key: string; body: unknown } | null = null;
      for (const o of ops) {
        if (o.t === 'mint') {
          // the faucet: the one source of new money, counted when it answers 200
          const amount = `${Math.floor(o.cents / 100)}.${String(o.cents % 100).padStart(2, '0')}`;
          const r = await h.call('POST', '/balance/mint-test-usdc', { key: o.who, body: { address: h.walletOf(o.who), amount } });
          if (r.status === 200) expected += BigInt(o.cents) * 10_000n;
        } else if (o.t === 'deposit') {
          const s = h.signerOf(o.who);
          let body: unknown = s.signPermit2({ amount: o.units });
          if (o.forged) body = { ...(h.signerOf(o.who === 'alice' ? 'bob' : 'alice').signPermit2({ amount: o.units }) as object), user: s.address };
          if (o.replay && lastPermit) body = lastPermit.body;
          await h.call('POST', '/gasless/deposit-with-permit', { key: o.who, body });
          lastPermit = { key: o.who, body };
        } else if (o.t === 'order') {
          const s = h.signerOf(o.who);
          const body = s.signOrder({ marketId: markets[o.market]!, outcomeIndex: o.outcomeIndex, side: o.side, price: o.price, size: o.size });
          const r = await h.call('POST', '/orders', { key: o.who, body });
          if (r.status === 201)
            placed.push({ key: o.who, nonce: body.nonce as Bytes32, marketId: markets[o.market]!, outcomeIndex: o.outcomeIndex, side: o.side, size: o.size });
        } else if (placed.length > 0) {
          const p = placed[o.pick % placed.length]!;
          const s = h.signerOf(p.key);
          const cancel = s.signCancel(p.nonce);
          if (o.replace) {
            const create = s.signOrder({ marketId: p.marketId, outcomeIndex: p.outcomeIndex, side: p.side, price: o.price, size: p.size });
            await h.call('POST', '/orders/cancel-replace', { key: p.key, body: { cancel, create } });
          } else {
            await h.call('POST', '/orders/cancel', { key: p.key, body: cancel });
          }
        }
        assert.equal(totalUsdc(), expected, `after ${o.t}: ${JSON.stringify(o, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`);
        assert.deepEqual(h.ex.state.engine.engine.checkInvariants(), []);
      }
    }),
    { numRuns: 40, seed: 23 },
  );
});
