/**
 * Ids are normalised where they enter (src/model/ids.ts; docs/architecture.md#ids-at-the-boundary):
 * a market id or nonce in mixed case from the venue, a book payload or the config comes out lower
 * case, so the code inside matches it with ===.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfigText } from '../../src/config/load-config.ts';
import { parseOrder } from '../../src/exchange/client/parse-order.ts';
import { normalizeOrderbook } from '../../src/exchange/client/normalize-orderbook.ts';
import { BadResponseError } from '../../src/model/errors.ts';
import { addressOf, bytes32Of, isBytes32, mustAddress } from '../../src/model/ids.ts';
import { checkMigration, checkWallet, collateralToMigrate } from '../../src/doctor/venue-checks.ts';
import { MAINNET } from '../../src/exchange/chains.ts';
import { parseMigrationStatus } from '../../src/exchange/client/migration.ts';
import { createSigner } from '../../src/exchange/signing/signer.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { StateStore } from '../../src/state/store.ts';
import { selectMarketView } from '../../src/state/market-view.ts';

const LOWER = ('0x' + 'ab'.repeat(32)) as Bytes32;
const MIXED = '0x' + 'aB'.repeat(32);
const NONCE_MIXED = '0x' + 'Cd'.repeat(32);

test('bytes32Of: lower-cases a 32-byte hex id, rejects anything else', () => {
  assert.equal(bytes32Of(MIXED), LOWER);
  assert.equal(bytes32Of(LOWER), LOWER);
  assert.equal(isBytes32(LOWER), true);
  assert.equal(isBytes32(MIXED), false);
  for (const bad of ['0x' + 'ab'.repeat(31), 'ab'.repeat(32), '0x' + 'zz'.repeat(32), 42, null, undefined]) assert.equal(bytes32Of(bad), null, String(bad));
});

/** A venue order answer (GET /orders item) with the given ids, the rest an open limit order's. */
const venueOrder = (ids: { marketId: string; trader: string; nonce: string }) => ({
  ...ids,
  side: 0,
  outcomeIndex: 1,
  price: '500000',
  size: '1000000',
  filledSize: '0',
  remainingSize: '1000000',
  percentFilled: 0,
  type: 'limit',
  status: 'open',
  voidReason: null,
  insertedAt: '2026-01-01T00:00:00Z',
  expiry: '0',
  settlementVersion: 2,
});

test('a venue order in mixed case is normalised where it is parsed', () => {
  const o = parseOrder(venueOrder({ marketId: MIXED, trader: '0x' + '11'.repeat(20), nonce: NONCE_MIXED }), { ep: 'GET /orders', path: 'orders[0]' });
  assert.equal(o.marketId, LOWER);
  assert.equal(o.nonce, NONCE_MIXED.toLowerCase());
});

test('a venue order whose nonce is not 32 bytes is a bad answer, not a Bytes32', () => {
  const order = (nonce: string) => venueOrder({ marketId: LOWER, trader: '0x' + '11'.repeat(20), nonce });
  assert.throws(
    () => parseOrder(order('0xabc'), { ep: 'GET /orders', path: 'orders[0]' }),
    (e: unknown) => e instanceof BadResponseError && e.field === 'orders[0].nonce',
  );
});

test('a book payload in mixed case lands on the market the bot keys in lower case', () => {
  const book = normalizeOrderbook({ marketId: MIXED, outcomeIndex: 1, bids: [{ price: 0.49, size: 10 }], asks: [{ price: 0.51, size: 10 }], timestamp: 1000 });
  assert.equal(book.marketId, LOWER);
  const store = new StateStore();
  store.dispatch({ type: 'BookEventReceived', event: { type: 'snapshot', book, seq: 1, localTs: 1000, source: 'stream' }, ts: 1000 });
  assert.equal(selectMarketView(store.state, LOWER, 1001)!.marketId, LOWER);
});

test('a config market id in mixed case is normalised where it is parsed', async () => {
  const c = await parseConfigText(`venue: mainnet\nmarkets:\n  - id: "${MIXED}"\n`, 'x.yaml', { env: {} });
  const sel = c.markets[0]!.select;
  assert.equal(sel.by, 'id');
  assert.equal(sel.by === 'id' ? sel.id : null, LOWER);
});

test('addressOf: lower-cases an address in any case (EIP-55 or not), rejects anything else; mustAddress names what is wrong', () => {
  const eip55 = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
  assert.equal(addressOf(eip55), eip55.toLowerCase());
  assert.equal(addressOf(eip55.toLowerCase()), eip55.toLowerCase());
  for (const bad of ['0x' + '11'.repeat(19), '11'.repeat(20), '0x' + 'zz'.repeat(20), '0x' + '11'.repeat(32), 42, null])
    assert.equal(addressOf(bad), null, String(bad));
  assert.equal(mustAddress(eip55, 'usdc'), eip55.toLowerCase());
  assert.throws(() => mustAddress('0xnope', 'the wallet'), /the wallet: expected an address/);
});

test('addresses the venue states enter in normal form: an order trader, the migration status wallet, contract and tokens', () => {
  const o = parseOrder(venueOrder({ marketId: LOWER, trader: '0x' + 'aB'.repeat(20), nonce: LOWER }), { ep: 'GET /orders', path: 'orders[0]' });
  assert.equal(o.trader, '0x' + 'ab'.repeat(20));
  // the signer's wallet (EIP-55 in the bodies it signs) against the status the venue states in lower case,
  // and the reverse: the same wallet either way; the contract and USDC compared in normal form
  const signer = createSigner({ privateKey: '0x' + '42'.repeat(32), chain: MAINNET });
  assert.equal(signer.normalAddress, signer.address.toLowerCase());
  for (const wallet of [signer.address.toLowerCase(), `0x${signer.address.slice(2).toUpperCase()}`]) {
    const status = parseMigrationStatus(
      {
        migrationActive: true,
        walletAddress: wallet,
        holdings: {},
        settlementV2Address: MAINNET.settlementV2.toUpperCase().replace('0X', '0x'),
        legacyBalances: [{ token: MAINNET.usdc.toLowerCase(), balance: '7' }],
        newBalances: [],
      },
      'GET /account/migration',
    );
    assert.equal(status.walletAddress, signer.normalAddress);
    assert.equal(checkWallet(status, signer).result, 'ok', wallet);
    assert.equal(collateralToMigrate(status, MAINNET), 7n);
    assert.doesNotMatch(checkMigration(status, MAINNET).detail, /wrong contract/);
  }
});
