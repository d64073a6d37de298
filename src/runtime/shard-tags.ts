/**
 * The nonce tags of a sharded deployment (docs/operating.md#changing-the-shard-count). Every nonce a
 * bot signs begins with its ledger's tag (src/orders/nonces.ts); a sharded bot's ledger, when it is
 * created, takes the tag of its shard index on its wallet instead of a random one:
 *
 *   shardTag(wallet, j) = the first 8 bytes of SHA-256("bookmaker shard tag v1" ‖ wallet ‖ j), as hex
 *
 * So the shards of one wallet know each other's orders by their tags alone, whatever the shard count
 * was when an order was placed: after a re-split (N → N′) a market that moved to this shard may still
 * hold a sibling's orders (its old owner crashed, or still runs with the old N), and those are a
 * sibling's, not another trader's. The tag does not depend on N, so shard j keeps its tag (and its
 * ledger) across re-splits. The shards of one wallet are one deployment: two sharded fleets on one
 * wallet would share tags (do not run them).
 *
 *   const s = new ShardSiblings(wallet, 2);   // the table of tags is built at the first look-up
 *   s.siblingOf(nonce)   // 0, 1, 3 …: the shard whose tag the nonce carries; null: not a sibling's
 */
import { createHash } from 'node:crypto';
import type { Bytes32 } from '../model/order.ts';

/** the highest shard count (src/selection/shard.ts): every sibling index is below it */
export const MAX_SHARDS = 10_000;

/** Shard `index`'s nonce tag on `wallet`: 16 lower-case hex digits. */
export function shardTag(wallet: string, index: number): string {
  return createHash('sha256').update(`bookmaker shard tag v1:${wallet.toLowerCase()}:${index}`).digest('hex').slice(0, 16);
}

/**
 * The tags of every other shard of this wallet, looked up by a nonce's first 8 bytes. The table is
 * built at the first look-up (10,000 hashes: ~0.1 s of CPU measured on a loaded 2-core host), which
 * only an order in this shard's markets that is not its own asks for.
 */
export class ShardSiblings {
  private byTag: Map<string, number> | null = null;

  constructor(
    private readonly wallet: string,
    readonly ownIndex: number,
  ) {}

  /** The sibling shard whose tag the nonce carries, or null (this shard's own, another trader's). */
  siblingOf(nonce: Bytes32): number | null {
    if (nonce.length !== 66) return null;
    if (this.byTag === null) {
      this.byTag = new Map();
      for (let j = 0; j < MAX_SHARDS; j++) if (j !== this.ownIndex) this.byTag.set(shardTag(this.wallet, j), j);
    }
    return this.byTag.get(nonce.slice(2, 18).toLowerCase()) ?? null;
  }
}
