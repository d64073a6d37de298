/**
 * USDC a wallet holds outside the Holdings contract (its plain ERC-20 balance). On the venue a
 * Permit2 deposit (`POST /gasless/deposit-with-permit`) moves USDC from there into Holdings: it
 * debits the wallet by exactly what it credits, and fails when the wallet holds less (the on-chain
 * transfer would revert). The local exchange keeps the balance per wallet in `state.ext`, so a state
 * file restores it with the rest.
 *
 * Where the USDC comes from: the testnet faucet (`POST /balance/mint-test-usdc`) credits Holdings
 * directly by default, so a bot can trade without a deposit step; with the account option
 * `faucet: 'wallet'` it mints to the wallet instead, as the venue's faucet does, and a deposit is
 * needed before trading. The faucet is the only source of new collateral.
 */
import { extData, type ExchangeState } from '../../context.ts';
import { HttpError } from '../../http-errors.ts';
import type { LowerAddress } from '../../wire-ids.ts';

export const WALLET_USDC_EXT_KEY = 'walletUsdc';

/** by wallet (lower-case) */
type Balances = Record<string, bigint>;

function balances(state: ExchangeState): Balances {
  return extData<Balances>(state, WALLET_USDC_EXT_KEY, () => ({}));
}

/** The wallet's USDC outside Holdings (1e-6 units). */
export function walletUsdc(state: ExchangeState, wallet: LowerAddress): bigint {
  const v = (state.ext[WALLET_USDC_EXT_KEY] as Balances | undefined)?.[wallet];
  return typeof v === 'bigint' ? v : 0n;
}

/** Credit the wallet's ERC-20 balance (the faucet in `wallet` mode). */
export function creditWalletUsdc(state: ExchangeState, wallet: LowerAddress, amount: bigint): void {
  if (amount <= 0n) return;
  const b = balances(state);
  b[wallet] = (b[wallet] ?? 0n) + amount;
}

/**
 * Take `amount` from the wallet's ERC-20 balance, or throw 400 (field `amount`) leaving it unchanged
 * when the wallet holds less.
 */
export function debitWalletUsdc(state: ExchangeState, wallet: LowerAddress, amount: bigint): void {
  requireWalletUsdc(state, wallet, amount);
  balances(state)[wallet] = walletUsdc(state, wallet) - amount;
}

/** Throw 400 (field `amount`) unless the wallet holds at least `amount` outside Holdings. */
export function requireWalletUsdc(state: ExchangeState, wallet: LowerAddress, amount: bigint): void {
  const have = walletUsdc(state, wallet);
  if (amount > have) {
    throw new HttpError(400, 'VALIDATION_ERROR', `amount: the wallet holds ${have} USDC units outside Holdings, less than the ${amount} to deposit`, {
      field: 'amount',
    });
  }
}
