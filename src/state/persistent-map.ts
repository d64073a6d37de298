/**
 * An immutable string-keyed map with cheap updates, for the store's per-market states.
 *
 * Entry point: `PersistentMap.empty<V>().set(key, value)` → a new map; the old one is unchanged.
 * It implements ReadonlyMap, so readers use it like a Map.
 *
 * Why: the store publishes a new immutable snapshot per event, and copying a Map of 200 markets on
 * every book update costs tens of µs (string-key hashing). Keys are spread over 32 buckets by a
 * small string hash; an update copies the bucket array (32 references) and one bucket (~n/32
 * entries). Iteration order is by bucket, then insertion: deterministic for the same keys and
 * history, which is what replay determinism needs (not the global insertion order of a Map).
 */
const BUCKETS = 32;

function bucketOf(key: string): number {
  // FNV-1a over at most the last 16 characters: market ids are hex hashes, so their tails are uniform
  let h = 0x811c9dc5;
  for (let i = Math.max(0, key.length - 16); i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % BUCKETS;
}

type Bucket<V> = readonly (readonly [string, V])[];

export class PersistentMap<V> implements ReadonlyMap<string, V> {
  private constructor(
    private readonly buckets: readonly Bucket<V>[],
    readonly size: number,
  ) {}

  static empty<V>(): PersistentMap<V> {
    return new PersistentMap<V>(new Array<Bucket<V>>(BUCKETS).fill([]), 0);
  }

  static from<V>(entries: Iterable<readonly [string, V]>): PersistentMap<V> {
    let m = PersistentMap.empty<V>();
    for (const [k, v] of entries) m = m.set(k, v);
    return m;
  }

  get(key: string): V | undefined {
    for (const e of this.buckets[bucketOf(key)]!) if (e[0] === key) return e[1];
    return undefined;
  }

  has(key: string): boolean {
    for (const e of this.buckets[bucketOf(key)]!) if (e[0] === key) return true;
    return false;
  }

  /** A new map with `key` set to `value`; this one is unchanged. */
  set(key: string, value: V): PersistentMap<V> {
    const b = bucketOf(key);
    // buckets are small arrays: copying one is far cheaper than copying a Map (no re-hashing)
    const bucket = this.buckets[b]!.slice();
    let i = -1;
    for (let j = 0; j < bucket.length; j++) {
      if (bucket[j]![0] === key) {
        i = j;
        break;
      }
    }
    if (i >= 0) bucket[i] = [key, value];
    else bucket.push([key, value]);
    const buckets = this.buckets.slice();
    buckets[b] = bucket;
    return new PersistentMap(buckets, i >= 0 ? this.size : this.size + 1);
  }

  /** A new map without `key` (this one when the key is absent); this one is unchanged. */
  delete(key: string): PersistentMap<V> {
    const b = bucketOf(key);
    const old = this.buckets[b]!;
    const i = old.findIndex((e) => e[0] === key);
    if (i < 0) return this;
    const bucket = old.slice();
    bucket.splice(i, 1);
    const buckets = this.buckets.slice();
    buckets[b] = bucket;
    return new PersistentMap(buckets, this.size - 1);
  }

  /**
   * The values in iteration order as an array, built once per map (it is immutable): readers that
   * walk every market on every tick skip the generator and its per-entry result objects.
   */
  valueList(): readonly V[] {
    if (this.valuesCache === null) {
      const out: V[] = [];
      for (const bucket of this.buckets) for (let j = 0; j < bucket.length; j++) out.push(bucket[j]![1]);
      this.valuesCache = out;
    }
    return this.valuesCache;
  }
  private valuesCache: V[] | null = null;

  /**
   * Calls `fn(key, before, after)` for every key whose value differs (by identity) between `from`
   * and this map: set (before undefined), replaced, or deleted (after undefined). Buckets shared by
   * the two maps are skipped, so two states one update apart cost one bucket, not the whole map.
   */
  forEachChangeSince(from: PersistentMap<V>, fn: (key: string, before: V | undefined, after: V | undefined) => void): void {
    if (from === this) return;
    for (let b = 0; b < BUCKETS; b++) {
      const now = this.buckets[b]!;
      const old = from.buckets[b]!;
      if (now === old) continue;
      // the usual case: the same keys in the same order (set replaces in place), some values replaced
      let aligned = now.length === old.length;
      for (let j = 0; aligned && j < now.length; j++) if (now[j]![0] !== old[j]![0]) aligned = false;
      if (aligned) {
        for (let j = 0; j < now.length; j++) if (now[j]![1] !== old[j]![1]) fn(now[j]![0], old[j]![1], now[j]![1]);
        continue;
      }
      const before = new Map<string, V>();
      for (const e of old) before.set(e[0], e[1]);
      for (const e of now) {
        const v = before.get(e[0]);
        if (v !== e[1] || !before.has(e[0])) fn(e[0], v, e[1]);
        before.delete(e[0]);
      }
      for (const [k, v] of before) fn(k, v, undefined);
    }
  }

  /** How many of the buckets differ from `from`'s (0: the same entries; an update changes one). */
  bucketsChangedSince(from: PersistentMap<V>): number {
    let n = 0;
    for (let b = 0; b < BUCKETS; b++) if (this.buckets[b] !== from.buckets[b]) n++;
    return n;
  }

  *entries(): MapIterator<[string, V]> {
    for (const b of this.buckets) for (const e of b) yield [e[0], e[1]];
  }

  *keys(): MapIterator<string> {
    for (const b of this.buckets) for (const e of b) yield e[0];
  }

  *values(): MapIterator<V> {
    for (const b of this.buckets) for (const e of b) yield e[1];
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  forEach(fn: (value: V, key: string, map: ReadonlyMap<string, V>) => void, thisArg?: unknown): void {
    for (const b of this.buckets) for (const e of b) fn.call(thisArg, e[1], e[0], this);
  }
}
