/**
 * An open-addressing hash table of slot numbers with linear probing, as the bounded id sets keep it
 * (src/core/bytes32-window.ts, src/account/kept-fills.ts, src/state/fill-ids.ts): a power-of-two
 * Int32Array holding slot + 1 per cell, 0 for an empty cell, larger than the slots it holds so a probe
 * always ends at an empty cell.
 *
 *   probeLink(table, mask, s, hash)          // put slot s in at its home cell `hash & mask` or after it
 *   probeUnlink(table, mask, s, owner, hashOf)   // take slot s out; hashOf(owner, slot) is a held slot's hash
 *
 * `hashOf` takes its owner as an argument (a static function of the owner's class), so no instance
 * carries a closure of its own.
 */

/** Put slot s, whose hash is `h`, in the first empty cell from its home on. */
export function probeLink(table: Int32Array, mask: number, s: number, h: number): void {
  let i = h & mask;
  while (table[i] !== 0) i = (i + 1) & mask;
  table[i] = s + 1;
}

/** Take slot s out of the table, moving later entries of its probe run back so none is lost. */
export function probeUnlink<T>(table: Int32Array, mask: number, s: number, owner: T, hashOf: (owner: T, slot: number) => number): void {
  let i = hashOf(owner, s) & mask;
  while (table[i] !== s + 1) i = (i + 1) & mask;
  for (;;) {
    table[i] = 0;
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const e = table[j]!;
      if (e === 0) return;
      const home = hashOf(owner, e - 1) & mask;
      // the entry at j stays when its home lies cyclically in (i, j]
      const stays = i <= j ? i < home && home <= j : i < home || home <= j;
      if (!stays) {
        table[i] = e;
        i = j;
        break;
      }
    }
  }
}
