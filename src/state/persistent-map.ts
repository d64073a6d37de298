/**
 * An immutable string-keyed map with cheap updates, for the store's per-market states.
 *
 * Entry point: `PersistentMap.empty<V>().set(key, value)` → a new map; the old one is unchanged.
 * It implements ReadonlyMap, so readers use it like a Map.
 *
 * Why: the store publishes a new immutable snapshot per event, and copying a Map of 200 markets on
 * every book update costs tens of µs (string-key hashing). Keys are spread over 32 buckets by a
 * small string hash; an update copies the bucket array (32 references), the bucket's chunk list and
 * one chunk (at most 16 entries). Iteration order is by bucket, then insertion: deterministic for the same keys and
 * history, which is what replay determinism needs (not the global insertion order of a Map).
 *
 * A map of at most FLAT_MAX keys is kept flat instead: its keys in that same order (by bucket, then
 * insertion) and their values, two short arrays. Replacing a value copies the values only (the keys
 * are shared), where the bucketed form copies the 32 buckets: at a handful of markets that copy was
 * most of what a store update allocated (docs/performance.md, "The whole-capture backtest"). The
 * ninth key turns the map bucketed for good; the two forms iterate, and report changes, in the same
 * order, so which one a map is changes nothing a reader sees.
 */
const BUCKETS = 32;
/**
 * Entries per chunk of a bucket. A bucket is a list of chunks, each in insertion order: an update
 * copies the bucket's chunk list and one chunk, and two maps one update apart differ in one chunk.
 * At 2,000 markets a bucket holds ~60 entries; as one flat array every update copied, and every
 * comparison of two states walked, all of them (docs/performance.md).
 */
const CHUNK = 16;
/** Keys a map holds flat (below) before it turns bucketed. */
const FLAT_MAX = 8;
const NO_BUCKET: Bucket<never> = [];

/** the key bucketOf saw last, and its bucket */
let lastKey: string | null = null;
let lastBucket = 0;

export function bucketOf(key: string): number {
  // the key of the last call again (a reduction reads, then sets, the same market): no hash
  if (key === lastKey) return lastBucket;
  // FNV-1a over at most the last 16 characters: market ids are hex hashes, so their tails are uniform
  let h = 0x811c9dc5;
  for (let i = Math.max(0, key.length - 16); i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  lastKey = key;
  lastBucket = (h >>> 0) % BUCKETS;
  return lastBucket;
}

type Entry<V> = readonly [string, V];
type Chunk<V> = readonly Entry<V>[];
/** a bucket's entries in insertion order, cut into chunks of at most CHUNK (none empty) */
type Bucket<V> = readonly Chunk<V>[];

export class PersistentMap<V> implements ReadonlyMap<string, V> {
  private constructor(
    /** the bucketed form; null while the map is flat */
    private readonly buckets: readonly Bucket<V>[] | null,
    /** the flat form (null once bucketed): the keys in iteration order, shared by the maps that only replaced values */
    private readonly keyList: readonly string[] | null,
    /** the flat form's values, by the keys' places */
    private readonly vals: readonly V[] | null,
    readonly size: number,
  ) {}

  static empty<V>(): PersistentMap<V> {
    return new PersistentMap<V>(null, [], [], 0);
  }

  static from<V>(entries: Iterable<readonly [string, V]>): PersistentMap<V> {
    let m = PersistentMap.empty<V>();
    for (const [k, v] of entries) m = m.set(k, v);
    return m;
  }

  get(key: string): V | undefined {
    const keys = this.keyList;
    if (keys !== null) {
      for (let i = 0; i < keys.length; i++) if (keys[i] === key) return this.vals![i];
      return undefined;
    }
    const bucket = this.buckets![bucketOf(key)]!;
    for (let c = 0; c < bucket.length; c++) {
      const chunk = bucket[c]!;
      for (let j = 0; j < chunk.length; j++) if (chunk[j]![0] === key) return chunk[j]![1];
    }
    return undefined;
  }

  has(key: string): boolean {
    const keys = this.keyList;
    if (keys !== null) return keys.includes(key);
    const bucket = this.buckets![bucketOf(key)]!;
    for (let c = 0; c < bucket.length; c++) {
      const chunk = bucket[c]!;
      for (let j = 0; j < chunk.length; j++) if (chunk[j]![0] === key) return true;
    }
    return false;
  }

  /** A new map with `key` set to `value`; this one is unchanged. */
  set(key: string, value: V): PersistentMap<V> {
    const keys = this.keyList;
    if (keys !== null) {
      for (let i = 0; i < keys.length; i++) {
        if (keys[i] === key) {
          const vals = this.vals!.slice();
          vals[i] = value;
          return new PersistentMap(null, keys, vals, this.size);
        }
      }
      if (keys.length >= FLAT_MAX) return this.bucketed().set(key, value);
      // a new key goes after the last one of its bucket or an earlier one: by bucket, then insertion
      const b = bucketOf(key);
      let at = keys.length;
      while (at > 0 && bucketOf(keys[at - 1]!) > b) at--;
      const k2 = keys.slice();
      const v2 = this.vals!.slice();
      k2.splice(at, 0, key);
      v2.splice(at, 0, value);
      return new PersistentMap(null, k2, v2, this.size + 1);
    }
    const b = bucketOf(key);
    const old = this.buckets![b]!;
    // chunks are small arrays: copying the chunk list and one chunk is far cheaper than copying a Map
    const bucket = old.slice();
    let found = false;
    for (let c = 0; c < old.length && !found; c++) {
      const chunk = old[c]!;
      for (let j = 0; j < chunk.length; j++) {
        if (chunk[j]![0] === key) {
          const copy = chunk.slice();
          copy[j] = [key, value];
          bucket[c] = copy;
          found = true;
          break;
        }
      }
    }
    if (!found) {
      // appended at the end: the bucket's order stays insertion order
      const last = bucket.length > 0 ? bucket[bucket.length - 1]! : null;
      if (last !== null && last.length < CHUNK) bucket[bucket.length - 1] = [...last, [key, value]];
      else bucket.push([[key, value]]);
    }
    const buckets = this.buckets!.slice();
    buckets[b] = bucket;
    return new PersistentMap(buckets, null, null, found ? this.size : this.size + 1);
  }

  /** A new map without `key` (this one when the key is absent); this one is unchanged. */
  delete(key: string): PersistentMap<V> {
    const keys = this.keyList;
    if (keys !== null) {
      const i = keys.indexOf(key);
      if (i < 0) return this;
      const k2 = keys.slice();
      const v2 = this.vals!.slice();
      k2.splice(i, 1);
      v2.splice(i, 1);
      return new PersistentMap(null, k2, v2, this.size - 1);
    }
    const b = bucketOf(key);
    const old = this.buckets![b]!;
    for (let c = 0; c < old.length; c++) {
      const i = old[c]!.findIndex((e) => e[0] === key);
      if (i < 0) continue;
      const chunk = old[c]!.slice();
      chunk.splice(i, 1);
      const bucket = old.slice();
      if (chunk.length === 0) bucket.splice(c, 1);
      else bucket[c] = chunk;
      const buckets = this.buckets!.slice();
      buckets[b] = bucket;
      return new PersistentMap(buckets, null, null, this.size - 1);
    }
    return this;
  }

  /** This map's entries in the bucketed form (a flat map's built in its order, once). */
  private bucketsOf(): readonly Bucket<V>[] {
    if (this.buckets !== null) return this.buckets;
    if (this.bucketCache === null) {
      // empty buckets share one empty list, as in a map built bucketed
      const buckets = new Array<Bucket<V>>(BUCKETS).fill(NO_BUCKET);
      const keys = this.keyList!;
      for (let i = 0; i < keys.length; i++) {
        const b = bucketOf(keys[i]!);
        const bucket = buckets[b] === NO_BUCKET ? [] : (buckets[b] as Entry<V>[][]);
        const last = bucket.length > 0 ? bucket[bucket.length - 1]! : null;
        if (last !== null && last.length < CHUNK) last.push([keys[i]!, this.vals![i]!]);
        else bucket.push([[keys[i]!, this.vals![i]!]]);
        buckets[b] = bucket;
      }
      this.bucketCache = buckets;
    }
    return this.bucketCache;
  }
  private bucketCache: readonly Bucket<V>[] | null = null;

  /** This flat map as a bucketed one (the same entries and order). */
  private bucketed(): PersistentMap<V> {
    return new PersistentMap(this.bucketsOf(), null, null, this.size);
  }

  /**
   * The values in iteration order as an array, built once per map (it is immutable): readers that
   * walk every market on every tick skip the generator and its per-entry result objects.
   */
  valueList(): readonly V[] {
    if (this.vals !== null) return this.vals;
    if (this.valuesCache === null) {
      const out: V[] = [];
      for (const bucket of this.buckets!) for (const chunk of bucket) for (let j = 0; j < chunk.length; j++) out.push(chunk[j]![1]);
      this.valuesCache = out;
    }
    return this.valuesCache;
  }
  private valuesCache: V[] | null = null;

  /**
   * Calls `fn(key, before, after)` for every key whose value differs (by identity) between `from`
   * and this map: set (before undefined), replaced, or deleted (after undefined). Buckets and chunks
   * shared by the two maps are skipped, so two states one update apart cost one chunk, not the whole
   * map. The calls come in iteration order (bucket, then the bucket's entries).
   */
  forEachChangeSince(from: PersistentMap<V>, fn: (key: string, before: V | undefined, after: V | undefined) => void): void {
    if (from === this) return;
    // two flat maps of the same keys in the same order (values replaced): place by place
    const keys = this.keyList;
    if (keys !== null && from.keyList !== null && sameKeys(keys, from.keyList)) {
      const now = this.vals!;
      const old = from.vals!;
      for (let i = 0; i < keys.length; i++) if (now[i] !== old[i]) fn(keys[i]!, old[i], now[i]);
      return;
    }
    const nowBuckets = this.bucketsOf();
    const oldBuckets = from.bucketsOf();
    for (let b = 0; b < BUCKETS; b++) {
      const now = nowBuckets[b]!;
      const old = oldBuckets[b]!;
      if (now === old) continue;
      // the usual case: the same keys in the same chunks (set replaces in place), some values replaced
      if (chunksAligned(now, old)) {
        for (let c = 0; c < now.length; c++) {
          const n = now[c]!;
          const o = old[c]!;
          if (n === o) continue;
          for (let j = 0; j < n.length; j++) if (n[j]![1] !== o[j]![1]) fn(n[j]![0], o[j]![1], n[j]![1]);
        }
        continue;
      }
      const before = new Map<string, V>();
      for (const chunk of old) for (const e of chunk) before.set(e[0], e[1]);
      for (const chunk of now) {
        for (const e of chunk) {
          const v = before.get(e[0]);
          if (v !== e[1] || !before.has(e[0])) fn(e[0], v, e[1]);
          before.delete(e[0]);
        }
      }
      for (const [k, v] of before) fn(k, v, undefined);
    }
  }

  *entries(): MapIterator<[string, V]> {
    const keys = this.keyList;
    if (keys !== null) for (let i = 0; i < keys.length; i++) yield [keys[i]!, this.vals![i]!];
    else for (const b of this.buckets!) for (const chunk of b) for (const e of chunk) yield [e[0], e[1]];
  }

  *keys(): MapIterator<string> {
    const keys = this.keyList;
    if (keys !== null) yield* keys;
    else for (const b of this.buckets!) for (const chunk of b) for (const e of chunk) yield e[0];
  }

  *values(): MapIterator<V> {
    yield* this.valueList();
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  forEach(fn: (value: V, key: string, map: ReadonlyMap<string, V>) => void, thisArg?: unknown): void {
    const keys = this.keyList;
    if (keys !== null) for (let i = 0; i < keys.length; i++) fn.call(thisArg, this.vals![i]!, keys[i]!, this);
    else for (const b of this.buckets!) for (const chunk of b) for (const e of chunk) fn.call(thisArg, e[1], e[0], this);
  }
}

/** The same keys at the same places. */
function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Two versions of a bucket hold the same keys in the same chunks, at the same places (values may differ). */
function chunksAligned<V>(now: Bucket<V>, old: Bucket<V>): boolean {
  if (now.length !== old.length) return false;
  for (let c = 0; c < now.length; c++) {
    const n = now[c]!;
    const o = old[c]!;
    if (n === o) continue;
    if (n.length !== o.length) return false;
    for (let j = 0; j < n.length; j++) if (n[j]![0] !== o[j]![0]) return false;
  }
  return true;
}
