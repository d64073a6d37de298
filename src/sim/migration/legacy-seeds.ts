/**
 * Seeded legacy accounts: wallets that still hold funds in the legacy Holdings contract and have
 * Settlement V1 orders resting, so the whole migration flow (status → start → migrate-funds with one
 * or many chunks → restore / dismiss → trading allowed) can be exercised against the local exchange.
 *
 * Accounts are configurable (tests pass their own wallets); `demoLegacyAccounts` derives throwaway
 * wallets deterministically from the exchange seed for `bookmaker sim` and `npm start`.
 */
import { addressOfPrivateKey, keccakText } from '../../exchange/signing/text-hash.ts';
import { BadInputError } from '../../model/errors.ts';
import { addressOf, bytes32Of } from '../../model/ids.ts';
import type { Address, Bytes32, Hex, OutcomeIndex, SideValue } from '../../model/order.ts';
import { isValidPrice } from '../../model/units.ts';
import type { LowerAddress } from '../wire-ids.ts';
import type { LegacyBalance, LegacyOrder, MigrationData } from './migration-data.ts';

export interface LegacyPositionSeed {
  marketId: Bytes32;
  outcomeIndex: OutcomeIndex;
  /** 1e-6 shares */
  amount: bigint;
}

export interface LegacyOrderSeed {
  marketId: Bytes32;
  outcomeIndex: OutcomeIndex;
  side: SideValue;
  /** 1e-6 USDC per share */
  price: number;
  /** 1e-6 shares */
  size: number;
  /** shares already filled under V1 (default 0) */
  filled?: number;
  /** unix seconds (default: seeding time + 30 days) */
  expiry?: number;
  maxFee?: number;
  nonce?: Bytes32;
  timeInForce?: 0 | 1 | 2;
  inventoryModeConstraint?: 0 | 1 | 2;
}

export interface LegacyAccountSeed {
  wallet: Address;
  /** legacy Holdings USDC, 1e-6 */
  collateral?: bigint;
  positions?: LegacyPositionSeed[];
  orders?: LegacyOrderSeed[];
}

/** Where a token lives: the collateral address and each market's outcome-token addresses. */
export interface TokenDirectory {
  usdc: Address;
  outcomeToken(marketId: Bytes32, outcomeIndex: OutcomeIndex): Address | undefined;
}

const DAY = 86_400;

/** keccak256 of a text: lower-case hex, so already a Bytes32 in normal form. */
function hashOf(text: string): Bytes32 {
  return keccakText(text);
}

/** The hash is derived from the seed as given (market id in the seed's spelling), so it stays as before. */
function legacyOrderHash(wallet: LowerAddress, id: number, o: LegacyOrderSeed): Bytes32 {
  return hashOf(`legacy-order:${wallet}:${id}:${o.marketId}:${o.outcomeIndex}:${o.side}:${o.price}:${o.size}`);
}

/**
 * Add one legacy account to the migration data. Bad seeds are a BadInputError naming the field.
 * The seed's ids enter here and are normalised once (docs/local-exchange.md#ids-and-addresses): the
 * wallet keys the record, market ids and nonces are stored lower-case. The record keeps the wallet
 * in the seed's spelling (`wallet`, each order's `trader`): the status and drafts show it so.
 */
export function seedLegacyAccount(data: MigrationData, seed: LegacyAccountSeed, tokens: TokenDirectory, nowSec: number, field = 'legacyAccounts[]'): void {
  const wallet = addressOf(seed.wallet);
  if (wallet === null) throw new BadInputError(`${field}.wallet`, 'an address (0x followed by 40 hex digits)', seed.wallet);
  const balances: LegacyBalance[] = [];
  if (seed.collateral !== undefined && seed.collateral > 0n) balances.push({ token: tokens.usdc, amount: seed.collateral, asset: { kind: 'collateral' } });
  (seed.positions ?? []).forEach((p, i) => {
    const marketId = bytes32Of(p.marketId);
    const token = marketId === null ? undefined : tokens.outcomeToken(marketId, p.outcomeIndex);
    if (!marketId || !token) throw new BadInputError(`${field}.positions[${i}].marketId`, 'a known market', p.marketId);
    if (p.amount > 0n) balances.push({ token, amount: p.amount, asset: { kind: 'outcome', marketId, outcomeIndex: p.outcomeIndex } });
  });
  const orders: LegacyOrder[] = (seed.orders ?? []).map((o, i) => {
    if (!isValidPrice(o.price)) throw new BadInputError(`${field}.orders[${i}].price`, 'a price in (0, 1e6)', o.price);
    if (!Number.isSafeInteger(o.size) || o.size <= 0) throw new BadInputError(`${field}.orders[${i}].size`, 'a positive size', o.size);
    const filled = o.filled ?? 0;
    if (!Number.isSafeInteger(filled) || filled < 0 || filled >= o.size)
      throw new BadInputError(`${field}.orders[${i}].filled`, 'a fill below the size', filled);
    const marketId = bytes32Of(o.marketId);
    if (marketId === null) throw new BadInputError(`${field}.orders[${i}].marketId`, 'a market id (0x followed by 64 hex digits)', o.marketId);
    const nonce = o.nonce === undefined ? undefined : bytes32Of(o.nonce);
    if (nonce === null) throw new BadInputError(`${field}.orders[${i}].nonce`, 'a nonce (0x followed by 64 hex digits)', o.nonce);
    const id = data.nextLegacyOrderId++;
    return {
      id,
      hash: legacyOrderHash(wallet, id, o),
      marketId,
      trader: seed.wallet,
      side: o.side,
      outcomeIndex: o.outcomeIndex,
      price: o.price,
      size: o.size,
      remainingSize: o.size - filled,
      nonce: nonce ?? hashOf(`legacy-nonce:${wallet}:${id}`),
      expiry: o.expiry ?? nowSec + 30 * DAY,
      // the SDK default: 1 % of notional in USDC units, at least 1
      maxFee: o.maxFee ?? Math.max(1, Math.floor(Math.floor((o.price * o.size) / 100) / 1e6)),
      timeInForce: o.timeInForce ?? 0,
      makerRoleConstraint: 0,
      inventoryModeConstraint: o.inventoryModeConstraint ?? 0,
      clientOrderType: 'limit',
      status: 'open',
    };
  });
  data.wallets[wallet] = {
    wallet: seed.wallet,
    legacyBalances: balances,
    legacyOrders: orders,
    restorations: [],
    started: false,
    funds: null,
    usedBatchNonces: [],
  };
}

export interface DemoLegacyAccount {
  /** throwaway key derived from the exchange seed; printed by `bookmaker sim` for demos only */
  privateKey: Hex;
  account: LegacyAccountSeed;
}

/**
 * Deterministic demo legacy accounts: each holds legacy USDC plus a YES and a NO position in the
 * first markets (so its plan spans several chunks at two tokens per chunk) and rests two V1 orders.
 */
export function demoLegacyAccounts(seed: number, count: number, marketIds: readonly Bytes32[]): DemoLegacyAccount[] {
  const out: DemoLegacyAccount[] = [];
  for (let i = 0; i < count; i++) {
    const privateKey: Hex = keccakText(`bookmaker-legacy:${seed}:${i}`);
    const wallet = addressOfPrivateKey(privateKey);
    const m = marketIds.slice(0, 2);
    const positions: LegacyPositionSeed[] = m.flatMap((marketId, j) => [
      { marketId, outcomeIndex: 1 as const, amount: BigInt(5_000_000 * (j + 1)) },
      { marketId, outcomeIndex: 0 as const, amount: BigInt(3_000_000 * (j + 1)) },
    ]);
    const orders: LegacyOrderSeed[] = m.length
      ? [
          { marketId: m[0]!, outcomeIndex: 1, side: 0, price: 400_000, size: 10_000_000 },
          { marketId: m[0]!, outcomeIndex: 1, side: 1, price: 650_000, size: 4_000_000, filled: 1_000_000 },
        ]
      : [];
    out.push({ privateKey, account: { wallet, collateral: 1_000_000_000n, positions, orders } });
  }
  return out;
}
