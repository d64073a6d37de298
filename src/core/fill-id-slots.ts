/**
 * Fill ids kept as numbers: the live feeds' fill id is an order's nonce and its filled size,
 * `0x<64 hex digits>:<shares>` (src/feeds/own-orders-feed.ts, src/ledger/catch-up.ts), a string of
 * ~80 characters (~100 bytes on V8's heap, and one more pointer per structure that holds it). Such an
 * id in canonical form (lower-case hex, the size a decimal integer below 2^53 without leading zeros)
 * is kept as 8 32-bit words and one number: 40 bytes, no object. Any other string (a backtest's
 * `sim-N`, the paper venue's, a fill without a venue id: src/account/account-fill.ts fillKey) is kept
 * as itself, so the answers are a set of strings' answers, to the character.
 *
 * Entry points: `parseFillId(id)` → canonical? (its words and size are then in the scratch the slots
 * read), `fillIdHash(id, canonical)`, and `FillIdSlots`: numbered slots that hold one id each
 * (`write`, `matches`, `idAt`, `move`, `grow`). The structures that remember fill ids
 * (src/state/fill-ids.ts, src/account/kept-fills.ts) are built on them.
 */
import { fmix } from './bytes32-window.ts';

/** 0-9 → 0-9, a-f → 10-15, anything else → -1 (by char code) */
const NIBBLE = new Int8Array(128).fill(-1);
for (let c = 0; c < 10; c++) NIBBLE[48 + c] = c;
for (let c = 0; c < 6; c++) NIBBLE[97 + c] = 10 + c;

/** the words and the size of the last canonical id parsed (one id at a time: no allocation per call) */
const WORDS = new Int32Array(8);
let SIZE = 0;

/** the longest size written without an exponent and exactly: 2^53 − 1 has 16 digits */
const MAX_DIGITS = 16;

/** Is `id` '0x', 64 lower-case hex digits, ':' and a decimal integer (no leading zero, below 2^53)? Its parts are then in the scratch. */
export function parseFillId(id: string): boolean {
  const n = id.length;
  if (n < 68 || n > 67 + MAX_DIGITS || id.charCodeAt(0) !== 48 || id.charCodeAt(1) !== 120 || id.charCodeAt(66) !== 58) return false;
  for (let w = 0, o = 2; w < 8; w++) {
    let x = 0;
    for (let k = 0; k < 8; k++, o++) {
      const c = id.charCodeAt(o);
      const d = c < 128 ? NIBBLE[c]! : -1;
      if (d < 0) return false;
      x = (x << 4) | d;
    }
    WORDS[w] = x;
  }
  // '0' alone, or no leading zero
  if (id.charCodeAt(67) === 48 && n !== 68) return false;
  let size = 0;
  for (let o = 67; o < n; o++) {
    const c = id.charCodeAt(o) - 48;
    if (c < 0 || c > 9) return false;
    size = size * 10 + c;
  }
  if (size > Number.MAX_SAFE_INTEGER) return false;
  SIZE = size;
  return true;
}

/** The id's hash: of the scratch's words and size when canonical (parseFillId just said so), else of its characters. */
export function fillIdHash(id: string, canonical: boolean): number {
  if (canonical) {
    let h = 0x9747b28c;
    for (let w = 0; w < 8; w++) h = fmix(h ^ WORDS[w]!) + w;
    h = fmix(h ^ (SIZE % 0x1_0000_0000)) + 8;
    return fmix(h ^ Math.floor(SIZE / 0x1_0000_0000));
  }
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return fmix(h);
}

const HEX: string[] = [];
for (let i = 0; i < 256; i++) HEX.push(i.toString(16).padStart(2, '0'));

function hex8(x: number): string {
  return HEX[(x >>> 24) & 255]! + HEX[(x >>> 16) & 255]! + HEX[(x >>> 8) & 255]! + HEX[x & 255]!;
}

/** empty columns, shared: zero-length, so nothing can be written into them */
const NO_I32 = new Int32Array(0);
const NO_F64 = new Float64Array(0);

/**
 * Numbered slots of fill ids: 8 words, a size and a hash each (48 bytes), and a string for an id
 * that is not canonical (that column is made at the first such id). Grown by the owner. The columns
 * are private (#): a comparison of two structures (assert.deepStrictEqual of two books) compares
 * what they answer through their owners' rows, not how a table happened to be laid out.
 */
export class FillIdSlots {
  #words: Int32Array;
  #sizes: Float64Array;
  #hashes: Int32Array;
  /** each slot's id when not canonical (else undefined); null while no slot held one */
  #other: (string | undefined)[] | null = null;
  #cap: number;

  constructor(cap: number) {
    this.#cap = cap;
    // no slots yet (a book or market that has had no fill): the shared empty columns, nothing allocated
    this.#words = cap === 0 ? NO_I32 : new Int32Array(cap * 8);
    this.#sizes = cap === 0 ? NO_F64 : new Float64Array(cap);
    this.#hashes = cap === 0 ? NO_I32 : new Int32Array(cap);
  }

  get capacity(): number {
    return this.#cap;
  }

  /** Bytes the slots hold (a figure for tests and docs; a non-canonical id's string not counted). */
  get bytes(): number {
    return this.#words.byteLength + this.#sizes.byteLength + this.#hashes.byteLength + (this.#other === null ? 0 : 8 * this.#cap);
  }

  /** Slots [0, cap) kept, `n` slots in all. */
  grow(n: number): void {
    if (n <= this.#cap) return;
    const words = new Int32Array(n * 8);
    words.set(this.#words);
    this.#words = words;
    const sizes = new Float64Array(n);
    sizes.set(this.#sizes);
    this.#sizes = sizes;
    const hashes = new Int32Array(n);
    hashes.set(this.#hashes);
    this.#hashes = hashes;
    if (this.#other !== null) for (let s = this.#cap; s < n; s++) this.#other.push(undefined);
    this.#cap = n;
  }

  /** Put `id` into slot s: parseFillId(id) was `canonical`, just now, and `h` is fillIdHash's. */
  write(s: number, id: string, canonical: boolean, h: number): void {
    if (canonical) {
      this.#words.set(WORDS, s * 8);
      this.#sizes[s] = SIZE;
      if (this.#other !== null) this.#other[s] = undefined;
    } else {
      this.#other ??= new Array<string | undefined>(this.#cap).fill(undefined);
      this.#other[s] = id;
    }
    this.#hashes[s] = h;
  }

  hash(s: number): number {
    return this.#hashes[s]!;
  }

  /** Does slot s hold `id` (parsed just now: `canonical`, hash `h`)? */
  matches(s: number, id: string, canonical: boolean, h: number): boolean {
    if (this.#hashes[s] !== h) return false;
    const o = this.#other === null ? undefined : this.#other[s];
    if (!canonical) return o === id;
    if (o !== undefined || this.#sizes[s] !== SIZE) return false;
    const words = this.#words;
    for (let w = 0, k = s * 8; w < 8; w++, k++) if (words[k] !== WORDS[w]) return false;
    return true;
  }

  /** The id in slot s, as the string it came in as (a new string for a canonical one). */
  idAt(s: number): string {
    const o = this.#other === null ? undefined : this.#other[s];
    if (o !== undefined) return o;
    const words = this.#words;
    let out = '0x';
    for (let k = s * 8; k < s * 8 + 8; k++) out += hex8(words[k]!);
    return `${out}:${this.#sizes[s]}`;
  }

  /** Copy `n` slots from `from` to `to` (overlapping ranges as copyWithin). */
  move(to: number, from: number, n: number): void {
    if (n <= 0 || to === from) return;
    this.#words.copyWithin(to * 8, from * 8, (from + n) * 8);
    this.#sizes.copyWithin(to, from, from + n);
    this.#hashes.copyWithin(to, from, from + n);
    const o = this.#other;
    if (o !== null) {
      if (to < from) for (let i = 0; i < n; i++) o[to + i] = o[from + i];
      else for (let i = n - 1; i >= 0; i--) o[to + i] = o[from + i];
    }
  }

  /** Copy slot s of `src` into slot t of this. */
  copyFrom(src: FillIdSlots, s: number, t: number): void {
    this.#words.set(src.#words.subarray(s * 8, s * 8 + 8), t * 8);
    this.#sizes[t] = src.#sizes[s]!;
    this.#hashes[t] = src.#hashes[s]!;
    const o = src.#other === null ? undefined : src.#other[s];
    if (o !== undefined) {
      this.#other ??= new Array<string | undefined>(this.#cap).fill(undefined);
      this.#other[t] = o;
    } else if (this.#other !== null) this.#other[t] = undefined;
  }

  /** Slots [from, from + n) emptied (zeros, no string). */
  clear(from: number, n: number): void {
    this.#words.fill(0, from * 8, (from + n) * 8);
    this.#sizes.fill(0, from, from + n);
    this.#hashes.fill(0, from, from + n);
    if (this.#other !== null) this.#other.fill(undefined, from, from + n);
  }
}

/** a table of at least 1.5 entries a slot (a power of two): short probe runs */
export function tableSize(slots: number): number {
  let size = 4;
  while (size < slots * 1.5) size *= 2;
  return size;
}
