/**
 * A migrate-funds chunk's token list ({token, amount}[]) as the two parallel arrays of withdrawsHash.
 */
import { BadInputError } from '../../model/errors.ts';
import type { Address } from '../../model/order.ts';
import { assertAddressShape, toUint256 } from './hex.ts';

export interface TokenAmount {
  token: string;
  amount: string | number | bigint;
}

/** Validate a chunk's token list into the two parallel arrays of withdrawsHash. */
export function splitTokenAmounts(list: readonly TokenAmount[]): { tokens: Address[]; amounts: bigint[] } {
  if (!Array.isArray(list) || list.length === 0) throw new BadInputError('tokens', 'a non-empty array of {token, amount}', list);
  const tokens: Address[] = [];
  const amounts: bigint[] = [];
  list.forEach((t, i) => {
    if (t === null || typeof t !== 'object') throw new BadInputError(`tokens[${i}]`, 'an object {token, amount}', t);
    tokens.push(assertAddressShape(t.token, `tokens[${i}].token`));
    amounts.push(toUint256(t.amount, `tokens[${i}].amount`));
  });
  return { tokens, amounts };
}
