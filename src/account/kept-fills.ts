/**
 * The fills a market's book keeps for re-ordering (src/account/account.ts), in typed columns: 52
 * bytes a fill (five numbers, four small codes, the fill id's reference), where the fill objects
 * the feeds and the ledger give took ~130 bytes each and ~90 more for their own copy of the market
 * id (a ledger row, a feed's JSON: one string a fill). The book's market id is its market's one
 * string. The columns grow by doubling to the window the book allows, and no further.
 *
 * Entry points: `new KeptFills(most)`, `length`, `push(f)`, `insert(i, f)`, `drop(n)` (the oldest n),
 * `clear()`, `at(i)` (a view of one fill, valid until the next call), `before(f, i)` (fill order).
 */
import type { OutcomeIndex, SideValue } from '../model/order.ts';
import type { FillTerms } from '../state/position.ts';
import { FillIdSlots, fillIdHash, parseFillId, tableSize } from '../core/fill-id-slots.ts';
import { probeLink, probeUnlink } from '../core/probe-table.ts';
import { FILL_ID_HORIZON_MS, FILL_IDS_KEPT } from '../state/fill-ids.ts';

/** What a kept fill holds: the terms the books apply, its time and id for the order, its origin. */
export interface KeptFill extends FillTerms {
  readonly fillId: string;
  /** venue time, ms */
  readonly ts: number;
  readonly origin: 'own' | 'foreign';
}

/** numbers per fill: ts, price, size, fee, notional */
const NUMS = 5;
/** codes per fill: outcome, side, order kind + 1 (0: none), flags */
const CODES = 4;
const FOREIGN = 1;
const HAS_NOTIONAL = 2;
const START = 8;

/** One kept fill read out of the columns (the same object each call, for every book: no allocation a fill). */
class View implements KeptFill {
  /** the columns and index the fill id is read from, when asked (a canonical id is a new string) */
  src: KeptFills | null = null;
  i = 0;
  ts = 0;
  outcomeIndex: OutcomeIndex = 0;
  side: SideValue = 0;
  price = 0;
  size = 0;
  fee = 0;
  orderKind: 0 | 1 | 2 | undefined = undefined;
  notional: number | undefined = undefined;
  origin: 'own' | 'foreign' = 'own';
  get fillId(): string {
    return this.src === null ? '' : this.src.idOf(this.i);
  }
}

const VIEW = new View();

/** no fills yet: shared, zero-length (grow allocates; ~300 bytes of typed arrays' objects a book that has none) */
const NO_REFS = new Int32Array(0);
const NO_NUMS = new Float64Array(0);
const NO_CODES = new Uint8Array(0);
/** an IdMemory's table before its first id: shared, never written (the first add grows the slots and makes the table) */
const NO_TABLE = new Int32Array(4);
/** an IdMemory's fill times before its first id: shared, zero-length */
const NO_TS = new Float64Array(0);
/** the time of an id restored from rows that gave none: kept until the count cap forgets it */
const UNKNOWN_TS = Number.MAX_SAFE_INTEGER;

export class KeptFills {
  private nums = NO_NUMS;
  private codes = NO_CODES;
  /**
   * Each fill's id, kept once: its slot in the book's IdMemory (attach), which remembers it anyway;
   * -1 when the id is in #str (a fill kept from before an attach, a restored one, or one whose slot
   * the memory took for a newer id while the fill was still kept). Private (#): two books with the
   * same fills and ids are equal however their ids are held.
   */
  #ref = NO_REFS;
  #str: (string | undefined)[] | null = null;
  #memory: IdMemory | null = null;
  private n = 0;
  /** @param most the most fills it will hold (the book's window and one): the columns grow to it, no further */
  constructor(private readonly most: number) {}

  get length(): number {
    return this.n;
  }

  /** Read ids from `memory` (the book's): a fill pushed with its slot there keeps no id of its own. */
  attach(memory: IdMemory): void {
    this.#memory = memory;
    memory.keep(this);
  }

  /** Append a fill (the newest in fill order); `slot`: its id's slot in the attached memory, else -1. */
  push(f: KeptFill, slot = -1): void {
    this.insert(this.n, f, slot);
  }

  /** Put a fill at position i, the later ones moved up by one; `slot` as push's. */
  insert(i: number, f: KeptFill, slot = -1): void {
    if (this.n === this.capacity()) this.grow();
    const { nums, codes } = this;
    const ref = this.#ref;
    if (i < this.n) {
      nums.copyWithin((i + 1) * NUMS, i * NUMS, this.n * NUMS);
      codes.copyWithin((i + 1) * CODES, i * CODES, this.n * CODES);
      ref.copyWithin(i + 1, i, this.n);
      const str = this.#str;
      if (str !== null) for (let j = this.n; j > i; j--) str[j] = str[j - 1];
    }
    if (slot >= 0 && this.#memory !== null) {
      ref[i] = slot;
      if (this.#str !== null) this.#str[i] = undefined;
    } else this.own(i, f.fillId);
    const o = i * NUMS;
    nums[o] = f.ts;
    nums[o + 1] = f.price;
    nums[o + 2] = f.size;
    nums[o + 3] = f.fee;
    nums[o + 4] = f.notional ?? 0;
    const c = i * CODES;
    codes[c] = f.outcomeIndex;
    codes[c + 1] = f.side;
    codes[c + 2] = f.orderKind === undefined ? 0 : f.orderKind + 1;
    codes[c + 3] = (f.origin === 'foreign' ? FOREIGN : 0) | (f.notional !== undefined ? HAS_NOTIONAL : 0);
    this.n++;
  }

  /** Forget the oldest `k` fills. */
  drop(k: number): void {
    if (k <= 0) return;
    k = Math.min(k, this.n);
    this.nums.copyWithin(0, k * NUMS, this.n * NUMS);
    this.codes.copyWithin(0, k * CODES, this.n * CODES);
    this.#ref.copyWithin(0, k, this.n);
    this.#ref.fill(-1, this.n - k, this.n);
    const str = this.#str;
    if (str !== null) {
      for (let i = k; i < this.n; i++) str[i - k] = str[i];
      str.fill(undefined, this.n - k, this.n);
    }
    // zeros where no fill is held (a restored book has the same columns, to the byte)
    this.nums.fill(0, (this.n - k) * NUMS, this.n * NUMS);
    this.codes.fill(0, (this.n - k) * CODES, this.n * CODES);
    this.n -= k;
  }

  /** Forget every fill and give the columns back. */
  clear(): void {
    this.nums = NO_NUMS;
    this.codes = NO_CODES;
    this.#ref = NO_REFS;
    this.#str = null;
    this.n = 0;
  }

  /** Fill i keeps its id itself. */
  private own(i: number, id: string): void {
    this.#ref[i] = -1;
    this.#str ??= new Array<string | undefined>(this.#ref.length).fill(undefined);
    this.#str[i] = id;
  }

  /** The attached memory is about to give `slot` to a newer id: a fill still kept with that id keeps it itself. */
  release(slot: number): void {
    const ref = this.#ref;
    for (let i = 0; i < this.n; i++) if (ref[i] === slot) this.own(i, this.#memory!.idAt(slot));
  }

  /** The attached memory moved its ids: the one in slot `head` to 0, the next ones after it (a ring of `slots`). */
  rotated(head: number, slots: number): void {
    const ref = this.#ref;
    for (let i = 0; i < this.n; i++) if (ref[i]! >= 0) ref[i] = (ref[i]! - head + slots) % slots;
  }

  /** The attached memory is about to move its ids: every fill keeps its id itself. */
  releaseAll(): void {
    const ref = this.#ref;
    for (let i = 0; i < this.n; i++) if (ref[i]! >= 0) this.own(i, this.#memory!.idAt(ref[i]!));
  }

  /** Fill i, as a view valid until the next call of `at`. */
  at(i: number): KeptFill {
    const v = VIEW;
    const o = i * NUMS;
    const c = i * CODES;
    const { nums, codes } = this;
    v.src = this;
    v.i = i;
    v.ts = nums[o]!;
    v.price = nums[o + 1]!;
    v.size = nums[o + 2]!;
    v.fee = nums[o + 3]!;
    v.outcomeIndex = codes[c] as OutcomeIndex;
    v.side = codes[c + 1] as SideValue;
    const kind = codes[c + 2]!;
    v.orderKind = kind === 0 ? undefined : ((kind - 1) as 0 | 1 | 2);
    const flags = codes[c + 3]!;
    v.notional = flags & HAS_NOTIONAL ? nums[o + 4]! : undefined;
    v.origin = flags & FOREIGN ? 'foreign' : 'own';
    return v;
  }

  /**
   * The fills as rows of numbers and their ids (the books checkpoint: src/account/account-snapshot.ts):
   * [ts, price, size, fee, notional, outcome, side, kind + 1, flags] per fill, exactly as held.
   */
  toRows(): { most: number; capacity: number; nums: number[][]; ids: string[] } {
    const nums: number[][] = [];
    for (let i = 0; i < this.n; i++) {
      const row = Array.from(this.nums.subarray(i * NUMS, (i + 1) * NUMS));
      for (const c of this.codes.subarray(i * CODES, (i + 1) * CODES)) row.push(c);
      nums.push(row);
    }
    const ids: string[] = [];
    for (let i = 0; i < this.n; i++) ids.push(this.idOf(i));
    return { most: this.most, capacity: this.capacity(), nums, ids };
  }

  static fromRows(most: number, capacity: number, nums: readonly (readonly number[])[], ids: readonly string[]): KeptFills {
    const ok =
      Number.isSafeInteger(most) &&
      most >= 1 &&
      Number.isSafeInteger(capacity) &&
      capacity <= Math.max(most, START) &&
      nums.length <= capacity &&
      nums.length === ids.length &&
      ids.every((x) => typeof x === 'string') &&
      nums.every(
        (r) =>
          Array.isArray(r) &&
          r.length === NUMS + CODES &&
          r.every((x, j) => typeof x === 'number' && Number.isFinite(x) && (j < NUMS || (Number.isInteger(x) && x >= 0 && x < 256))),
      );
    if (!ok) throw new Error('damaged kept fills in the books snapshot');
    const k = new KeptFills(most);
    k.allocate(capacity);
    for (let i = 0; i < nums.length; i++) {
      const r = nums[i]!;
      k.nums.set(r.slice(0, NUMS), i * NUMS);
      k.codes.set(r.slice(NUMS), i * CODES);
      k.own(i, ids[i]!);
      k.n++;
    }
    return k;
  }

  /** Does `f` come before kept fill i in fill order (venue time, then fill id)? */
  before(f: { readonly ts: number; readonly fillId: string }, i: number): boolean {
    const ts = this.nums[i * NUMS]!;
    return f.ts < ts || (f.ts === ts && f.fillId < this.idOf(i));
  }

  /** Kept fill i's id. */
  idOf(i: number): string {
    const r = this.#ref[i]!;
    return r >= 0 ? this.#memory!.idAt(r) : this.#str![i]!;
  }

  private capacity(): number {
    return this.codes.length / CODES;
  }

  private grow(): void {
    this.allocate(Math.min(Math.max(START, this.capacity() * 2), Math.max(this.most, this.n + 1)));
  }

  private allocate(cap: number): void {
    const nums = new Float64Array(cap * NUMS);
    nums.set(this.nums);
    const codes = new Uint8Array(cap * CODES);
    codes.set(this.codes);
    this.nums = nums;
    this.codes = codes;
    const ref = new Int32Array(cap).fill(-1);
    ref.set(this.#ref);
    this.#ref = ref;
    if (this.#str !== null) while (this.#str.length < cap) this.#str.push(undefined);
  }
}

/**
 * The fill ids a book remembers for de-duplication: those of the last FILL_ID_HORIZON_MS (15 min) by
 * the fills' own times, never fewer than the newest FILL_IDS_KEPT (128) whatever their age, never more
 * than `capacity` (the count cap, a backstop), the oldest forgotten first. As the store's window
 * (src/state/fill-ids.ts), and for the same reason: a fill reaches the live books again only by a
 * feed's re-read, within its recent-orders window (600 s at most), and by fill time the books see
 * their fills in order; a restart rebuilds the books from the ledger, whose unique fill id is the
 * durable guard (docs/performance.md, "Memory over a long run"). It kept the newest `capacity` (1,024)
 * whatever their age: 2-4 hours of fills at soak-memory's rates, filling all that time.
 *
 * A ring of slots (src/core/fill-id-slots.ts: an id in the feeds' form is 48 bytes of numbers, no
 * string), each with its fill's time, and an open-addressing table of slot numbers (linear probing,
 * deletion by backward shift). It grows by doubling only when every id it holds is still within the
 * horizon (or the floor), so its size follows the fills of 15 minutes, not the hours. It replaced a
 * ring of the id strings and a Set of them: each id's string (~100 bytes) and a Set entry.
 */
export class IdMemory {
  /** (# private: two memories that remember the same ids are equal, whatever their slots' and tables' layout) */
  #slots = new FillIdSlots(0);
  /** each slot's fill time, ms */
  #ts = NO_TS;
  /** slot + 1 per cell, 0: empty */
  #table = NO_TABLE;
  #mask = 3;
  /** ids held: slots head, head + 1, … (mod the slots' capacity), oldest first */
  #count = 0;
  #head = 0;

  constructor(private capacity: number) {}

  get size(): number {
    return this.#count;
  }

  /** the most ids it remembers (resize) */
  get limit(): number {
    return this.capacity;
  }

  has(id: string): boolean {
    if (this.#count === 0) return false;
    const canonical = parseFillId(id);
    return this.lookup(id, canonical, fillIdHash(id, canonical)) >= 0;
  }

  /** The kept fills that read their ids from this memory (KeptFills.attach): told before a slot is given to another id. */
  #keeper: KeptFills | null = null;

  keep(k: KeptFills): void {
    this.#keeper = k;
  }

  /** The id in slot s (a slot add returned, still held). */
  idAt(s: number): string {
    return this.#slots.idAt(s);
  }

  /**
   * Remember an id not remembered yet, of a fill at `ts` (ms; 0: no time, forgotten by the count
   * alone): first the oldest are forgotten, beyond the cap, and those older than the horizon before
   * `ts` beyond the floor (from the oldest: a late fill's older time forgets none). Its slot.
   */
  add(id: string, ts = 0): number {
    const cut = ts - FILL_ID_HORIZON_MS;
    const floor = Math.min(FILL_IDS_KEPT, this.capacity);
    while (this.#count > 0 && (this.#count >= this.capacity || (this.#count >= floor && this.#ts[this.#head]! < cut))) this.forgetOldest();
    if (this.#count === this.#slots.capacity) this.grow(Math.min(this.capacity, Math.max(8, this.#count * 2)));
    const s = (this.#head + this.#count) % this.#slots.capacity;
    this.#count++;
    // parsed last: the slots read the scratch parseFillId fills
    const canonical = parseFillId(id);
    const h = fillIdHash(id, canonical);
    this.#slots.write(s, id, canonical, h);
    this.#ts[s] = ts;
    this.link(s);
    return s;
  }

  /** The oldest id forgotten (a kept fill that reads it keeps it itself). */
  private forgetOldest(): void {
    const s = this.#head;
    this.#keeper?.release(s);
    this.unlink(s);
    this.#head = s + 1 === this.#slots.capacity ? 0 : s + 1;
    this.#count--;
  }

  /**
   * The ids remembered, oldest first, and their fills' times (the books checkpoint:
   * src/account/account-snapshot.ts). `head` is 0: rows of an older bookmaker gave the ring in slot
   * order from the oldest at `head`, without times (fromRows reads both).
   */
  toRows(): { capacity: number; head: number; ids: string[]; ts: number[] } {
    const ids: string[] = [];
    const ts: number[] = [];
    const n = this.#slots.capacity;
    for (let i = 0; i < this.#count; i++) {
      const s = (this.#head + i) % n;
      ids.push(this.#slots.idAt(s));
      ts.push(this.#ts[s]!);
    }
    return { capacity: this.capacity, head: 0, ids, ts };
  }

  /**
   * The memory toRows describes. Rows without times (an older bookmaker's checkpoint): each id is
   * kept until the count cap forgets it (UNKNOWN_TS), never by the horizon.
   */
  static fromRows(capacity: number, head: number, ring: readonly string[], times?: readonly number[]): IdMemory {
    const ok =
      Number.isSafeInteger(capacity) &&
      capacity >= 1 &&
      ring.length <= capacity &&
      Number.isSafeInteger(head) &&
      head >= 0 &&
      (head === 0 || (head < capacity && ring.length === capacity)) &&
      ring.every((x) => typeof x === 'string') &&
      new Set(ring).size === ring.length &&
      (times === undefined || (times.length === ring.length && times.every((t) => typeof t === 'number' && Number.isFinite(t))));
    if (!ok) throw new Error('damaged fill ids in the books snapshot');
    const m = new IdMemory(capacity);
    m.grow(ring.length);
    for (let i = 0; i < ring.length; i++) {
      const id = ring[(head + i) % ring.length]!;
      const canonical = parseFillId(id);
      m.#slots.write(i, id, canonical, fillIdHash(id, canonical));
      m.#ts[i] = times === undefined ? UNKNOWN_TS : times[i]!;
      m.link(i);
      m.#count++;
    }
    return m;
  }

  /** Remember the newest `n` ids at most from now on (the older ones held are forgotten). */
  resize(n: number): void {
    if (n === this.capacity) return;
    this.#keeper?.releaseAll();
    const keep = Math.min(this.#count, n);
    const old = this.#slots;
    const oldTs = this.#ts;
    const out = new FillIdSlots(keep);
    const ts = keep === 0 ? NO_TS : new Float64Array(keep);
    // oldest first: the newest `keep`
    for (let i = 0; i < keep; i++) {
      const s = (this.#head + this.#count - keep + i) % old.capacity;
      out.copyFrom(old, s, i);
      ts[i] = oldTs[s]!;
    }
    this.#slots = out;
    this.#ts = ts;
    this.#count = keep;
    this.#head = 0;
    this.capacity = n;
    this.relink();
  }

  /**
   * The ids remembered (the newest `newest`) and their fills' times as one string (a folded book's, src/account/account.ts
   * FoldedBook): per id, its time (a float64 as 4 UTF-16 code units) then its key (keyOf). A canonical
   * id (src/core/fill-id-slots.ts) packs into 25 code units (50 bytes), where the memory held 48 bytes of
   * slots, 8 of time and ~24 of table a slot, and ~700 bytes of typed arrays' objects and stores beside.
   * One string: a plain value the books checkpoint carries (JSON escapes what needs it).
   */
  pack(newest = this.#count): string {
    const r = this.toRows();
    const units: number[] = [];
    for (let i = Math.max(0, r.ids.length - newest); i < r.ids.length; i++) {
      f64Units(r.ts[i]!, units);
      keyUnits(r.ids[i]!, units);
    }
    return flatString(units);
  }

  /** The memory `pack` gave (its ids and times, oldest first), remembering at most `capacity`. */
  static unpack(capacity: number, packed: string): IdMemory {
    const ids: string[] = [];
    const ts: number[] = [];
    for (let at = 0; at < packed.length; ) {
      const n = at + 4 < packed.length ? keyLength(packed, at + 4) : 0;
      if (n === 0 || at + 4 + n > packed.length) throw new Error('damaged fill ids in the books snapshot');
      ts.push(unitsF64(packed, at));
      ids.push(idOfKey(packed, at + 4));
      at += 4 + n;
    }
    // the newest `capacity` (a memory smaller than the one packed)
    const from = Math.max(0, ids.length - capacity);
    return IdMemory.fromRows(capacity, 0, ids.slice(from), ts.slice(from));
  }

  /** The number of ids a packed memory (pack) holds. */
  static packedCount(packed: string): number {
    let n = 0;
    for (let at = 4; at < packed.length; at += keyLength(packed, at) + 4) n++;
    return n;
  }

  /** Is `id` among the ids of a packed memory (pack)? A walk over them: a folded book keeps a few. */
  static packedHas(packed: string, id: string): boolean {
    const key = keyOf(id);
    for (let at = 4; at < packed.length; ) {
      const n = keyLength(packed, at);
      if (n === 0) return false;
      if (n === key.length && packed.startsWith(key, at)) return true;
      at += n + 4;
    }
    return false;
  }

  private lookup(id: string, canonical: boolean, h: number): number {
    const table = this.#table;
    for (let i = h & this.#mask; ; i = (i + 1) & this.#mask) {
      const e = table[i]!;
      if (e === 0) return -1;
      if (this.#slots.matches(e - 1, id, canonical, h)) return e - 1;
    }
  }

  /**
   * `n` slots, the ids held moved to slots 0, 1, … oldest first (the kept fills' references moved
   * with them), the table rebuilt for them.
   */
  private grow(n: number): void {
    const old = this.#slots;
    const cap = old.capacity;
    if (this.#head === 0) {
      old.grow(n);
      const ts = new Float64Array(n);
      ts.set(this.#ts.subarray(0, Math.min(cap, n)));
      this.#ts = ts;
    } else {
      const out = new FillIdSlots(n);
      const ts = new Float64Array(n);
      for (let i = 0; i < this.#count; i++) {
        const s = (this.#head + i) % cap;
        out.copyFrom(old, s, i);
        ts[i] = this.#ts[s]!;
      }
      this.#keeper?.rotated(this.#head, cap);
      this.#slots = out;
      this.#ts = ts;
      this.#head = 0;
    }
    this.relink();
  }

  private relink(): void {
    this.#table = new Int32Array(tableSize(this.#slots.capacity));
    this.#mask = this.#table.length - 1;
    const n = this.#slots.capacity;
    for (let i = 0; i < this.#count; i++) this.link((this.#head + i) % n);
  }

  private link(s: number): void {
    probeLink(this.#table, this.#mask, s, this.#slots.hash(s));
  }

  private unlink(s: number): void {
    probeUnlink(this.#table, this.#mask, s, this, IdMemory.hashOf);
  }

  private static hashOf(m: IdMemory, s: number): number {
    return m.#slots.hash(s);
  }
}

/** a float64's 8 bytes, read as 4 code units (exact for any number: a fill's time, a size below 2^53) */
const F64 = new DataView(new ArrayBuffer(8));

/** x's 8 bytes as 4 code units, appended to `out` */
function f64Units(x: number, out: number[]): void {
  F64.setFloat64(0, x);
  out.push(F64.getUint16(0), F64.getUint16(2), F64.getUint16(4), F64.getUint16(6));
}

/**
 * One flat string of the code units (built from parts by +, a string is a tree of the parts, ~32
 * bytes a node, until something reads it whole: a packed memory of 32 ids held 12 KB so).
 */
function flatString(units: readonly number[]): string {
  if (units.length <= 4_096) return String.fromCharCode(...units);
  // (a long id that is not canonical) a joined array is one flat string
  const parts: string[] = [];
  for (let i = 0; i < units.length; i += 4_096) parts.push(String.fromCharCode(...units.slice(i, i + 4_096)));
  return parts.join('');
}

/** The number whose 8 bytes are the 4 code units at `at` (f64Units). */
function unitsF64(s: string, at: number): number {
  for (let k = 0; k < 4; k++) F64.setUint16(2 * k, s.charCodeAt(at + k));
  return F64.getFloat64(0);
}

/** a packed key's first code unit: a canonical id (16 units of its 64 hex digits, 4 of its size), or another (2 units of length, its characters) */
const CANONICAL = 0;
const OTHER = 1;
/** code units of a canonical id's key */
const CANONICAL_KEY = 1 + 16 + 4;

/** A fill id as a packed key: its parts when canonical (parseFillId), else the string itself after its length. */
function keyOf(id: string): string {
  const units: number[] = [];
  keyUnits(id, units);
  return flatString(units);
}

function keyUnits(id: string, out: number[]): void {
  if (parseFillId(id)) {
    out.push(CANONICAL);
    for (let o = 2; o < 66; o += 4) out.push(parseInt(id.slice(o, o + 4), 16));
    f64Units(Number(id.slice(67)), out);
    return;
  }
  out.push(OTHER, id.length >>> 16, id.length & 0xffff);
  for (let i = 0; i < id.length; i++) out.push(id.charCodeAt(i));
}

/** code units of the key at `at` (0: none there) */
function keyLength(s: string, at: number): number {
  const tag = s.charCodeAt(at);
  if (tag === CANONICAL) return CANONICAL_KEY;
  return tag === OTHER ? 3 + s.charCodeAt(at + 1) * 0x1_0000 + s.charCodeAt(at + 2) : 0;
}

/** The fill id a packed key holds, as the string it came in as (a canonical id's form is unique: lower-case hex, no leading zero). */
function idOfKey(s: string, at: number): string {
  if (s.charCodeAt(at) !== CANONICAL) return s.slice(at + 3, at + keyLength(s, at));
  let out = '0x';
  for (let k = 1; k <= 16; k++)
    out += s
      .charCodeAt(at + k)
      .toString(16)
      .padStart(4, '0');
  return `${out}:${unitsF64(s, at + 17)}`;
}
