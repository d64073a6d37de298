/**
 * The account's books as one JSON-safe value, and back (the ledger's books checkpoint,
 * src/ledger/books-checkpoint.ts; docs/ledger-operations.md).
 *
 *   const s = snapshotAccount(account)       // { shape, account }: every field the Account holds
 *   const b = restoreAccount(s)              // an Account equal to the original, field for field
 *   accountShape()                           // the field names a snapshot must carry (changes when Account does)
 *
 * Whatever the Account holds is carried: the snapshot walks every own field of the account and of
 * each market's book (nothing is listed by hand), so a field added to src/account/account.ts is in
 * the next snapshot without a change here. `shape` names those fields: a snapshot written before a
 * field was added (or after one was removed) does not match `accountShape()` and is refused
 * (restoreAccount throws), so a reader never fills a new field with nothing.
 *
 * Exact: integers stay integers, bigints travel as decimal text ({"$b": "…"}), Maps and Sets as
 * their entries, `undefined` as itself; an array of flat records with the same keys is stored as one
 * key list and rows of values, to keep the text small. A market's kept fills (src/account/kept-fills.ts,
 * typed columns) travel as rows of numbers and their fill ids, its remembered fill ids oldest first
 * with their fills' times.
 */
import { Account, type DetachedBook } from './account.ts';
import { IdMemory, KeptFills } from './kept-fills.ts';

/** A JSON value. */
type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export interface AccountSnapshot {
  /** the field names of the Account and of a market's book when it was written (see accountShape) */
  readonly shape: string;
  /** long strings (fill ids, market ids), each once: the account refers to them as "~<index>" */
  readonly strings: readonly string[];
  readonly account: Json;
}

type Fields = Record<string, unknown>;

/** The Account's own fields, and a market book's (the class is the account's own). */
function freshParts(): { account: Fields; book: Fields } {
  const a = new Account();
  // a market book is created the way the account creates one
  const book = (a as unknown as { book(id: string): Fields }).book('0x');
  return { account: a as unknown as Fields, book };
}

let shapeCache: string | null = null;

/** The field names of the Account and of a market's book, in a stable order. */
export function accountShape(): string {
  if (shapeCache !== null) return shapeCache;
  const { account, book } = freshParts();
  shapeCache = `account:${Object.keys(account).sort().join(',')};book:${Object.keys(book).sort().join(',')}`;
  return shapeCache;
}

const isPlain = (v: unknown): v is Fields => typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;
const flat = (v: unknown): boolean => v === null || typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean';

/**
 * Long strings are kept once in a table and referred to as "~<index>"; a string that itself begins
 * with "~" is written with one more "~" in front.
 */
const LONG = 20;

class Interner {
  readonly strings: string[] = [];
  private readonly index = new Map<string, number>();
  put(s: string): string {
    if (s.length < LONG) return s.charCodeAt(0) === 126 ? `~${s}` : s;
    let i = this.index.get(s);
    if (i === undefined) {
      i = this.strings.length;
      this.strings.push(s);
      this.index.set(s, i);
    }
    return `~${i}`;
  }
}

function str(s: string, table: readonly string[]): string {
  if (s.charCodeAt(0) !== 126) return s;
  if (s.charCodeAt(1) === 126) return s.slice(1);
  const i = Number(s.slice(1));
  const out = table[i];
  if (!Number.isInteger(i) || out === undefined) throw new Error('a damaged string reference in the books snapshot');
  return out;
}

function encode(v: unknown, bookProto: object, t: Interner): Json {
  if (v === undefined) return { $u: 0 };
  if (typeof v === 'string') return t.put(v);
  if (v === null || typeof v === 'boolean') return v;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`a non-finite number in the books (${v})`);
    return v;
  }
  if (typeof v === 'bigint') return { $b: v.toString() };
  if (Array.isArray(v)) {
    // flat records with one key list: rows of values
    const first = v[0] as unknown;
    if (v.length > 1 && isPlain(first)) {
      const keys = Object.keys(first);
      const same = v.every((r) => isPlain(r) && Object.keys(r).length === keys.length && keys.every((k) => k in r && flat(r[k])));
      if (same)
        return {
          $rows: keys,
          v: v.map((r) =>
            keys.map((k) => {
              const x = (r as Fields)[k];
              return typeof x === 'string' ? t.put(x) : (x as Json);
            }),
          ),
        };
    }
    return v.map((x) => encode(x, bookProto, t));
  }
  if (v instanceof KeptFills) {
    const r = v.toRows();
    return { $fills: [r.most, r.capacity, r.nums, r.ids.map((s) => t.put(s))] };
  }
  if (v instanceof IdMemory) {
    const r = v.toRows();
    return { $ids: [r.capacity, r.head, r.ts, r.ids.map((s) => t.put(s))] };
  }
  if (v instanceof Map) return { $m: [...v].map(([k, x]) => [encode(k, bookProto, t), encode(x, bookProto, t)]) };
  if (v instanceof Set) return { $s: [...v].map((x) => encode(x, bookProto, t)) };
  if (typeof v === 'object') {
    const proto = Object.getPrototypeOf(v) as object | null;
    const fields = encodeFields(v as Fields, bookProto, t);
    if (proto === Object.prototype) return fields;
    if (proto === bookProto) return { $book: fields };
    throw new Error(`the books hold a ${(v as object).constructor?.name ?? 'class'} object the snapshot cannot carry`);
  }
  throw new Error(`the books hold a ${typeof v} the snapshot cannot carry`);
}

function decode(j: Json, newBook: () => Fields, t: readonly string[]): unknown {
  if (typeof j === 'string') return str(j, t);
  if (j === null || typeof j !== 'object') return j;
  if (Array.isArray(j)) return j.map((x) => decode(x, newBook, t));
  const keys = Object.keys(j);
  if (keys.length === 1) {
    const k = keys[0]!;
    if (k === '$u') return undefined;
    if (k === '$b') {
      if (typeof j.$b !== 'string' || !/^-?\d+$/.test(j.$b)) throw new Error('a damaged integer in the books snapshot');
      return BigInt(j.$b);
    }
    if (k === '$m') return new Map((j.$m as Json[][]).map(([a, b]) => [decode(a!, newBook, t), decode(b!, newBook, t)]));
    if (k === '$s') return new Set((j.$s as Json[]).map((x) => decode(x, newBook, t)));
    if (k === '$fills' || k === '$ids') {
      const a = j[k];
      // $ids: [capacity, head, times, ids] (an older bookmaker's: [capacity, head, ids], no times); $fills: [most, capacity, rows, ids]
      const numbers = 2;
      if (
        !Array.isArray(a) ||
        a.length !== (k === '$ids' && a.length === 3 ? 3 : 4) ||
        !a.every((x, i) => (i < numbers ? typeof x === 'number' : Array.isArray(x)))
      )
        throw new Error('a damaged market book in the books snapshot');
      const ids = (a.at(-1) as Json[]).map((x) => (typeof x === 'string' ? str(x, t) : null));
      if (ids.includes(null)) throw new Error('a damaged fill id in the books snapshot');
      return k === '$ids'
        ? IdMemory.fromRows(a[0] as number, a[1] as number, ids as string[], a.length === 4 ? (a[2] as number[]) : undefined)
        : KeptFills.fromRows(a[0] as number, a[1] as number, a[2] as number[][], ids as string[]);
    }
    if (k === '$book') {
      const b = newBook();
      const want = Object.keys(b).sort().join(',');
      const f = j.$book as Record<string, Json>;
      if (Object.keys(f).sort().join(',') !== want) throw new Error('a market book in the snapshot has other fields than this bookmaker keeps');
      decodeFields(f, b, newBook, t);
      // a kept fill's id is read from the book's memory from now on (src/account/kept-fills.ts)
      if (b.fills instanceof KeptFills && b.ids instanceof IdMemory) b.fills.attach(b.ids);
      return b;
    }
  }
  if (keys.length === 2 && '$rows' in j && 'v' in j) {
    const names = j.$rows as string[];
    return (j.v as Json[][]).map((row) => {
      const r: Fields = {};
      for (let i = 0; i < names.length; i++) {
        const x = row[i];
        r[names[i]!] = typeof x === 'string' ? str(x, t) : x;
      }
      return r;
    });
  }
  const out: Fields = {};
  decodeFields(j, out, newBook, t);
  return out;
}

/**
 * An object's fields. A Set that holds, in order, the elements of an array beside it (the fill ids
 * remembered and their queue) is written as a reference to that array.
 */
function encodeFields(o: Fields, bookProto: object, t: Interner): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [k, x] of Object.entries(o)) {
    if (x instanceof Set) {
      const twin = Object.entries(o).find(([, y]) => Array.isArray(y) && y.length === x.size && sameOrder(x, y));
      if (twin) {
        out[k] = { $setOf: twin[0] };
        continue;
      }
    }
    out[k] = encode(x, bookProto, t);
  }
  return out;
}

function sameOrder(s: Set<unknown>, a: readonly unknown[]): boolean {
  let i = 0;
  for (const x of s) if (x !== a[i++]) return false;
  return true;
}

function decodeFields(j: Record<string, Json>, into: Fields, newBook: () => Fields, t: readonly string[]): void {
  const later: [string, string][] = [];
  for (const [k, x] of Object.entries(j)) {
    if (isPlain(x) && Object.keys(x).length === 1 && typeof x.$setOf === 'string') later.push([k, x.$setOf]);
    else into[k] = decode(x, newBook, t);
  }
  for (const [k, of] of later) {
    const a = into[of];
    if (!Array.isArray(a)) throw new Error('a damaged set reference in the books snapshot');
    into[k] = new Set(a);
  }
}

/** Every field of the account, JSON-safe (bigints as text). */
export function snapshotAccount(a: Account): AccountSnapshot {
  const bookProto = Object.getPrototypeOf(freshParts().book) as object;
  const t = new Interner();
  const fields = encodeFields(a as unknown as Fields, bookProto, t);
  return { shape: accountShape(), strings: t.strings, account: fields };
}

/**
 * The account a snapshot describes. Throws when the snapshot was written for other fields than
 * this Account has (see accountShape) or is damaged: the caller then rebuilds the books from the fills.
 */
export function restoreAccount(s: AccountSnapshot): Account {
  if (s === null || typeof s !== 'object' || s.shape !== accountShape()) throw new Error('the books snapshot was written for another shape of the account');
  if (!isPlain(s.account) || !Array.isArray(s.strings) || !s.strings.every((x) => typeof x === 'string')) throw new Error('a damaged books snapshot');
  const t = s.strings;
  const a = new Account();
  const fields = a as unknown as Fields;
  const host = new Account() as unknown as { book(id: string): Fields; books: Map<string, unknown> };
  const newBook = (): Fields => {
    const b = host.book('0x');
    host.books.clear();
    return b;
  };
  const f = s.account as Record<string, Json>;
  if (Object.keys(f).sort().join(',') !== Object.keys(fields).sort().join(','))
    throw new Error('the books snapshot has other fields than this bookmaker keeps');
  decodeFields(f, fields, newBook, t);
  return a;
}

/** Any value the books hold (a Map of position states, …) as JSON-safe text and back, with the same rules. */
export function snapshotValue(v: unknown): { readonly strings: readonly string[]; readonly value: Json } {
  const t = new Interner();
  return { strings: t.strings, value: encode(v, NO_PROTO, t) };
}

export function restoreValue(s: { readonly strings: readonly string[]; readonly value: Json }): unknown {
  if (s === null || typeof s !== 'object' || !Array.isArray(s.strings)) throw new Error('a damaged books snapshot');
  return decode(
    s.value,
    () => {
      throw new Error('a market book where none belongs in the books snapshot');
    },
    s.strings,
  );
}

const NO_PROTO = Object.create(null) as object;

/**
 * snapshotAccount as JSON text, built a market at a time with `step` awaited between markets (and
 * between batches of the string table), so a caller can yield to the event loop as it goes: the
 * pieces, concatenated, are the JSON text of the snapshot snapshotAccount gives (the same value
 * when parsed). The account must not change until it resolves (the books checkpoint snapshots a
 * replay of its own).
 */
export async function snapshotAccountPieces(
  a: Account,
  step: () => Promise<void>,
  /**
   * the account's market books, in order, when some are not in it (detached, src/ledger/books-checkpoint.ts):
   * the pieces are then those of the account that holds them all in that order
   */
  books?: AsyncIterable<readonly [string, DetachedBook]>,
): Promise<{ shape: string; pieces: string[] }> {
  const bookProto = Object.getPrototypeOf(freshParts().book) as object;
  const t = new Interner();
  const o = a as unknown as Fields;
  const fieldTexts: string[] = [];
  for (const [k, x] of Object.entries(o)) {
    if (x instanceof Map) {
      const entries: string[] = [];
      for await (const [key, val] of k === 'books' && books !== undefined ? books : x) {
        entries.push(JSON.stringify([encode(key, bookProto, t), encode(val, bookProto, t)]));
        await step();
      }
      fieldTexts.push(`${JSON.stringify(k)}:{"$m":[${entries.join(',')}]}`);
    } else {
      // the same rules as encodeFields (a Set beside the array it mirrors is a reference to it)
      const twin = x instanceof Set ? Object.entries(o).find(([, y]) => Array.isArray(y) && y.length === x.size && sameOrder(x, y)) : undefined;
      fieldTexts.push(`${JSON.stringify(k)}:${JSON.stringify(twin ? { $setOf: twin[0] } : encode(x, bookProto, t))}`);
    }
  }
  const strings: string[] = [];
  for (let i = 0; i < t.strings.length; i += 2_000) {
    strings.push(JSON.stringify(t.strings.slice(i, i + 2_000)).slice(1, -1));
    await step();
  }
  const shape = accountShape();
  return {
    shape,
    pieces: [`{"shape":${JSON.stringify(shape)},"strings":[`, strings.filter((s) => s.length > 0).join(','), '],"account":{', fieldTexts.join(','), '}}'],
  };
}

/**
 * One market's book (Account.detachBook) as JSON text of its own (its own string table), and back: the
 * books checkpoint's copy writes an idle market's book out this way and reads it back, the same book
 * field for field (restoreAccount's rules), when the market trades again or the next checkpoint is encoded.
 */
export function bookText(book: DetachedBook): string {
  const bookProto = Object.getPrototypeOf(freshParts().book) as object;
  if (Object.getPrototypeOf(book) !== bookProto) throw new Error('not a market book');
  const t = new Interner();
  const value = encode(book, bookProto, t);
  return JSON.stringify({ strings: t.strings, value });
}

export function bookFromText(text: string): DetachedBook {
  const s = JSON.parse(text) as { strings: unknown; value: Json };
  if (!Array.isArray(s.strings) || !s.strings.every((x) => typeof x === 'string')) throw new Error('a damaged market book text');
  const host = new Account() as unknown as { book(id: string): Fields; books: Map<string, unknown> };
  const newBook = (): Fields => {
    const b = host.book('0x');
    host.books.clear();
    return b;
  };
  const b = decode(s.value, newBook, s.strings as string[]);
  if (typeof b !== 'object' || b === null || Object.getPrototypeOf(b) !== Object.getPrototypeOf(newBook())) throw new Error('a damaged market book text');
  return b as DetachedBook;
}

/**
 * JSON.stringify(snapshotValue(new Map(entries))), built an entry at a time with `step` awaited between
 * them: a map whose entries are not all in memory at once (the books checkpoint's positions).
 */
export async function snapshotMapText(entries: AsyncIterable<readonly [unknown, unknown]>, step: () => Promise<void>): Promise<string> {
  const t = new Interner();
  const texts: string[] = [];
  for await (const [k, v] of entries) {
    texts.push(JSON.stringify([encode(k, NO_PROTO, t), encode(v, NO_PROTO, t)]));
    await step();
  }
  return `{"strings":${JSON.stringify(t.strings)},"value":{"$m":[${texts.join(',')}]}}`;
}
