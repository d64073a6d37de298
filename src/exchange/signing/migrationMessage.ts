/**
 * The public migration authorization message (docs/venue.md#migration-to-settlement-v2): five lines joined by "\n", no trailing
 * newline, signed with EIP-191 personal_sign.
 */
import { BadInputError } from '../../model/errors.ts';
import { addressOf } from '../../model/ids.ts';

export type MigrationAction = 'start' | 'dismiss-orders';

export interface MigrationAuthorizationFields {
  action: MigrationAction;
  wallet: string;
  /** Legacy order ids; empty or absent means "all". */
  legacyOrderIds?: readonly number[];
  /** unix seconds */
  deadline: number;
}

export function migrationAuthorizationMessage(f: MigrationAuthorizationFields): string {
  if (f.action !== 'start' && f.action !== 'dismiss-orders') throw new BadInputError('action', '"start" or "dismiss-orders"', f.action);
  // the message spells the wallet lower-case: the normal form (src/model/ids.ts)
  const wallet = addressOf(f.wallet);
  if (wallet === null) throw new BadInputError('wallet', 'an address (0x followed by 40 hex digits)', f.wallet);
  const ids = [...(f.legacyOrderIds ?? [])];
  for (const id of ids) if (!Number.isSafeInteger(id) || id < 0) throw new BadInputError('legacyOrderIds', 'non-negative integers', id);
  if (!Number.isSafeInteger(f.deadline) || f.deadline < 0) throw new BadInputError('deadline', 'unix seconds', f.deadline);
  ids.sort((a, b) => a - b);
  return [
    'Context public API migration authorization',
    `Action: ${f.action}`,
    `Wallet: ${wallet}`,
    `Legacy order ids: ${ids.length ? ids.join(',') : 'all'}`,
    `Deadline: ${f.deadline}`,
  ].join('\n');
}
