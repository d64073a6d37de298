/**
 * 65-byte signatures as 0x hex r‖s‖v with v = 27 + recovery id (viem's serializeSignature).
 */
import { BadInputError } from '../../model/errors.ts';
import type { Hex } from '../../model/order.ts';

const SIG = /^0x[0-9a-fA-F]{130}$/;

export interface DecodedSignature {
  rs: Buffer;
  recid: number;
}

export function decodeSignature(sig: unknown, field = 'signature'): DecodedSignature {
  if (typeof sig !== 'string' || !SIG.test(sig)) throw new BadInputError(field, '0x followed by 130 hex digits (r‖s‖v)', sig);
  const v = parseInt(sig.slice(130, 132), 16);
  // Accept both v conventions, as viem's recovery does: 27/28 and the raw parity 0/1.
  const recid = v === 27 || v === 28 ? v - 27 : v === 0 || v === 1 ? v : -1;
  if (recid < 0) throw new BadInputError(field, 'a v byte of 27, 28, 0 or 1', sig);
  return { rs: Buffer.from(sig.slice(2, 130), 'hex'), recid };
}

const OUT = Buffer.alloc(65);

/** Sign into r‖s via `write` (which returns the recovery id) and serialise with v = 27 + recid. */
export function encodeSignature(write: (out: Buffer) => number): Hex {
  const recid = write(OUT);
  OUT[64] = 27 + recid;
  return `0x${OUT.toString('hex')}`;
}
