/** Imported markets get a deterministic bytes32 id (keccak of a readable origin string), so the
 * engine and order types that expect 0x…64 ids accept them. */
import { keccakText } from '../../exchange/signing/text-hash.ts';
import type { Bytes32 } from '../../model/order.ts';

export function importedMarketId(origin: string): Bytes32 {
  // a keccak digest is lower-case hex: the normal form (src/model/ids.ts)
  return keccakText(origin);
}
