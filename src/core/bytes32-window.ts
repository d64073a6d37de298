/**
 * A window of the newest `capacity` keys (order nonces: '0x' and 64 hex digits), oldest dropped, with
 * `values` numbers beside each: a set (or a map to numbers) whose memory is allocated once, in the
 * constructor, and never grows. A bot that runs for hours keeps such windows (the nonces it issued,
 * its own orders, the closed orders the fills feed has reported); a Set or Map of strings holds one
 * string of ~90 bytes and a table entry per key, so it grows for as long as the window takes to fill
 * (minutes to hours), and an operator watching the heap cannot tell that from a leak.
 *
 * Entry points: `new Bytes32Window(capacity, values)`, `add(key)` (false: already there), `has`,
 * `find(key)` → its slot or -1, `set(key)` → its slot (added when new), `value(slot, j)` and
 * `setValue(slot, j, v)`. Insertion order as a Map's: setting a key already there keeps its place.
 *
 * How: slots are a ring; a key in canonical form (lower-case hex) is kept as 8 32-bit words in one
 * Int32Array (32 bytes, no object), any other string as itself (tests, a venue's odd nonce: the same
 * answers as a Set of strings, which tells '0xAB…' from '0xab…'). An open-addressing table of slot
 * numbers (linear probing, deletion by backward shift) finds a key in one or two probes.
 *
 * A window of more than UP_FRONT keys (the backtest's nonce source: a million, never full) is
 * allocated for HUGE_FIRST and doubled as it fills, to its capacity: the live bot's windows (5,000 and
 * 10,000) are whole from the start.
 */
import { InvariantError } from '../model/errors.ts';
import { probeLink, probeUnlink } from './probe-table.ts';

/** 0-9 → 0-9, a-f → 10-15, anything else → -1 (by char code) */
const NIBBLE = new Int8Array(128).fill(-1);
for (let c = 0; c < 10; c++) NIBBLE[48 + c] = c;
for (let c = 0; c < 6; c++) NIBBLE[97 + c] = 10 + c;

/** the words of a canonical key, read by `parse` (one key at a time: no allocation per call) */
const WORDS = new Int32Array(8);

/** Is `key` '0x' and 64 lower-case hex digits? Its words are then in WORDS. */
function parse(key: string): boolean {
  if (key.length !== 66 || key.charCodeAt(0) !== 48 || key.charCodeAt(1) !== 120) return false;
  for (let w = 0, o = 2; w < 8; w++) {
    let x = 0;
    for (let k = 0; k < 8; k++, o++) {
      const c = key.charCodeAt(o);
      const n = c < 128 ? NIBBLE[c]! : -1;
      if (n < 0) return false;
      x = (x << 4) | n;
    }
    WORDS[w] = x;
  }
  return true;
}

/** murmur3's finaliser: every bit of `h` moves every bit of the answer (also src/core/fill-id-slots.ts's) */
export function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

function wordsHash(): number {
  let h = 0x9747b28c;
  for (let w = 0; w < 8; w++) h = fmix(h ^ WORDS[w]!) + w;
  return fmix(h);
}

/** a table of at least 1.5 entries a slot (a power of two): short probe runs */
function tableSize(slots: number): number {
  let size = 4;
  while (size < slots * 1.5) size *= 2;
  return size;
}

function stringHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return fmix(h);
}

/** keys a window allocates for at the start, at most */
export const UP_FRONT = 16_384;
/**
 * keys a window larger than UP_FRONT allocates for at the start: a backtest makes one such window a
 * run (its nonces: 1,619 on the capture), and 16,384 slots (~0.8 MB, zeroed) were most of what its
 * nonce memory cost it
 */
export const HUGE_FIRST = 2_048;

export class Bytes32Window {
  private words: Int32Array;
  /** each slot's key when it is not canonical (else undefined) */
  private other: (string | undefined)[];
  private hashes: Int32Array;
  private values: Float64Array;
  /** slot + 1 per entry, 0: empty */
  private table: Int32Array;
  private mask: number;
  /** slots allocated (the capacity, or less while a large window fills) */
  private slots: number;
  /** the oldest slot (the next one written once full) and the number held */
  private head = 0;
  private count = 0;

  constructor(
    readonly capacity: number,
    private readonly width = 0,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new InvariantError('a window holds at least one key');
    this.slots = capacity <= UP_FRONT ? capacity : HUGE_FIRST;
    this.words = new Int32Array(this.slots * 8);
    this.other = new Array<string | undefined>(this.slots).fill(undefined);
    this.hashes = new Int32Array(this.slots);
    this.values = new Float64Array(this.slots * width);
    this.table = new Int32Array(tableSize(this.slots));
    this.mask = this.table.length - 1;
  }

  /** Double the slots (to the capacity at most) while none was dropped yet: slots [0, count) are held. */
  private grow(): void {
    const n = Math.min(this.capacity, this.slots * 2);
    const words = new Int32Array(n * 8);
    words.set(this.words);
    this.words = words;
    const hashes = new Int32Array(n);
    hashes.set(this.hashes);
    this.hashes = hashes;
    const values = new Float64Array(n * this.width);
    values.set(this.values);
    this.values = values;
    for (let s = this.slots; s < n; s++) this.other.push(undefined);
    this.slots = n;
    this.table = new Int32Array(tableSize(n));
    this.mask = this.table.length - 1;
    for (let s = 0; s < this.count; s++) this.link(s);
  }

  /** keys held (at most capacity) */
  get size(): number {
    return this.count;
  }

  /** Bytes this window holds (allocated in the constructor up to UP_FRONT keys): a figure for tests and docs. */
  get bytes(): number {
    return this.words.byteLength + this.hashes.byteLength + this.values.byteLength + this.table.byteLength + 4 * this.slots;
  }

  has(key: string): boolean {
    return this.find(key) >= 0;
  }

  /** The key's slot, -1 when not held. */
  find(key: string): number {
    const canonical = parse(key);
    return this.lookup(key, canonical, canonical ? wordsHash() : stringHash(key));
  }

  /** Add the key as the newest (the oldest dropped when full); false when it is held already (then nothing changes). */
  add(key: string): boolean {
    const canonical = parse(key);
    const h = canonical ? wordsHash() : stringHash(key);
    if (this.lookup(key, canonical, h) >= 0) return false;
    this.insert(key, canonical, h);
    return true;
  }

  /**
   * add() for a key whose words the caller has already (a nonce source that wrote the key from its
   * bytes): `key` must be canonical ('0x' and 64 lower-case hex digits) and `words` its 8 words as
   * parse reads them (each 8 hex digits, big-endian, as a 32-bit integer). The same answer and the
   * same slot as add(key), without reading the key's 64 digits back.
   */
  addWords(key: string, words: ArrayLike<number>): boolean {
    for (let w = 0; w < 8; w++) WORDS[w] = words[w]!;
    const h = wordsHash();
    if (this.lookup(key, true, h) >= 0) return false;
    this.insert(key, true, h);
    return true;
  }

  /** The key's slot, the key added as the newest when not held (its values 0). */
  set(key: string): number {
    const canonical = parse(key);
    const h = canonical ? wordsHash() : stringHash(key);
    const at = this.lookup(key, canonical, h);
    return at >= 0 ? at : this.insert(key, canonical, h);
  }

  value(slot: number, j: number): number {
    return this.values[slot * this.width + j]!;
  }

  setValue(slot: number, j: number, v: number): void {
    this.values[slot * this.width + j] = v;
  }

  private lookup(key: string, canonical: boolean, h: number): number {
    const table = this.table;
    for (let i = h & this.mask; ; i = (i + 1) & this.mask) {
      const e = table[i]!;
      if (e === 0) return -1;
      const s = e - 1;
      if (this.hashes[s] !== h) continue;
      const o = this.other[s];
      if (canonical ? o === undefined && this.sameWords(s) : o === key) return s;
    }
  }

  private sameWords(s: number): boolean {
    const words = this.words;
    for (let w = 0, o = s * 8; w < 8; w++, o++) if (words[o] !== WORDS[w]) return false;
    return true;
  }

  /** WORDS hold the key's words when canonical */
  private insert(key: string, canonical: boolean, h: number): number {
    let s: number;
    if (this.count < this.capacity) {
      if (this.count === this.slots) this.grow();
      s = this.count++;
    } else {
      s = this.head;
      this.unlink(s);
      this.head = (s + 1) % this.capacity;
    }
    if (canonical) {
      this.words.set(WORDS, s * 8);
      this.other[s] = undefined;
    } else this.other[s] = key;
    this.hashes[s] = h;
    this.values.fill(0, s * this.width, (s + 1) * this.width);
    this.link(s);
    return s;
  }

  private link(s: number): void {
    probeLink(this.table, this.mask, s, this.hashes[s]!);
  }

  private unlink(s: number): void {
    probeUnlink(this.table, this.mask, s, this, Bytes32Window.hashOf);
  }

  private static hashOf(w: Bytes32Window, s: number): number {
    return w.hashes[s]!;
  }
}
