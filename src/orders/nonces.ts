/**
 * Order nonces (docs/venue.md#encodings-and-enums: bytes32, unique per order, never reused).
 *
 * Entry point: `const nonces = new NonceSource(); nonces.next()` → a fresh 0x-prefixed bytes32.
 * The nonce is 32 CSPRNG bytes (with a ledger, its first 8 are the ledger's tag: see NONCE_TAG); the SDK hashes its random bytes with keccak256, which adds nothing
 * to 256 bits of CSPRNG output, so we use the bytes directly. A bounded memory of recent nonces
 * turns an impossible collision (or a bug that re-feeds a nonce) into an InvariantError instead of
 * a silently replaced order; it is bounded so a bot that runs for days does not grow without limit.
 */
import { randomBytes, randomFillSync } from 'node:crypto';
import { Bytes32Window } from '../core/bytes32-window.ts';
import { InvariantError } from '../model/errors.ts';
import type { Bytes32 } from '../model/order.ts';

/**
 * Nonces the order manager remembers to refuse a reuse. Uniqueness itself comes from 32 CSPRNG
 * bytes; the memory only turns a bug that re-feeds a nonce (a resend path, an adopted order) into
 * an InvariantError, and such a bug repeats a nonce within seconds. 10 000 nonces cover minutes of
 * the busiest quoting measured (~250 orders/s over 50 markets in soak-memory) and hours at a live
 * venue's rate limits. The window was 100 000 once: it held ~12 MB of 66-character strings that took
 * ~7 minutes of that quoting to fill: the soak's second-half RSS growth. It is a Bytes32Window
 * (src/core/bytes32-window.ts): ~0.5 MB allocated at the start, where a Set of the strings grew to
 * ~1.3 MB over those minutes.
 */
export const NONCE_MEMORY = 10_000;

/**
 * A tag of 8 bytes that every nonce of one ledger begins with (Ledger.nonceTag), leaving 24 CSPRNG
 * bytes (192 bits) per nonce: an order whose ledger record a crash lost is still known as this
 * bookmaker's by its nonce, and another instance's or a person's orders (their own tag, or the SDK's
 * keccak nonces) are not (a match by chance: 2^-64).
 */
const NONCE_TAG = /^[0-9a-f]{16}$/;

/** CSPRNG bytes drawn 128 nonces at a time: one randomBytes(32) call costs ~2.6 µs, a slice of the pool ~0.25 µs */
const POOL_BYTES = 32 * 128;

/** ASCII codes of the 16 lower-case hex digits */
const HEX_DIGIT = Uint8Array.from('0123456789abcdef', (c) => c.charCodeAt(0));

/** The hex of bytes of any length (an injected source's wrong-length answer, refused by the caller). */
function hexOf(b: Uint8Array): string {
  return '0x' + Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}

export class NonceSource {
  /** the newest `memory` nonces issued or remembered */
  private readonly recent: Bytes32Window;
  /** the default source's pool of CSPRNG bytes (each byte handed out once), null with an injected source */
  private readonly pool: Buffer | null;
  private used = POOL_BYTES;

  /** the ledger's nonce tag (16 hex digits) every nonce begins with, or '' */
  private readonly tag: string;
  /** a nonce's text as it is written: '0x', then the tag (when there is one), then the fresh bytes' hex */
  private readonly text = Buffer.alloc(66);
  /**
   * the words of the last nonce fresh() wrote (the tag's two first, then the fresh bytes' six or
   * eight, big-endian): the memory takes them as they are instead of reading the text's 64 digits
   * back (Bytes32Window.addWords)
   */
  private readonly words = new Int32Array(8);

  constructor(
    memory = NONCE_MEMORY,
    private readonly random: (n: number) => Uint8Array = randomBytes,
    tag?: string | null,
  ) {
    this.recent = new Bytes32Window(memory);
    this.pool = random === randomBytes ? Buffer.allocUnsafe(POOL_BYTES) : null;
    if (tag != null && !NONCE_TAG.test(tag)) throw new InvariantError('a nonce tag is 16 lower-case hex digits');
    this.tag = tag ?? '';
    this.text.write('0x' + this.tag, 0, 'latin1');
    // the tag's words (16 hex digits: the first two), once
    for (let w = 0; w < 2 && this.tag !== ''; w++) this.words[w] = Number.parseInt(this.tag.slice(8 * w, 8 * w + 8), 16) | 0;
  }

  /** A fresh nonce, never returned before within the remembered window. */
  next(): Bytes32 {
    const nonce = this.fresh();
    if (nonce.length !== 66) throw new InvariantError('nonce source returned a value that is not 32 bytes');
    // the words fresh() wrote the text from (see `words`); a reuse is refused as remember() does
    if (!this.recent.addWords(nonce, this.words)) throw new InvariantError(`nonce reused: ${nonce}`);
    return nonce;
  }

  /**
   * The nonce's text: '0x', the tag when there is one, then the hex of the fresh bytes (all 32, or
   * the last 24 after a tag), written into one ASCII buffer and read out as one string. (It was the
   * bytes' hex string, then '0x' + it: a second string, joined again when the nonce was first hashed.)
   */
  private fresh(): Bytes32 {
    const pool = this.pool;
    let src: Uint8Array;
    let at: number;
    if (pool === null) {
      // the injected source's bytes read at once, in place (it may hand out a view it reuses)
      src = this.random(32);
      at = 0;
      if (src.length !== 32) return hexOf(src) as Bytes32; // the wrong length, refused by next()
    } else {
      if (this.used + 32 > POOL_BYTES) {
        randomFillSync(pool);
        this.used = 0;
      }
      src = pool;
      at = this.used;
      this.used = at + 32;
    }
    const text = this.text;
    const words = this.words;
    // a tag takes the first 8 bytes' place (16 hex digits and two words, written once in the constructor)
    for (let i = this.tag === '' ? 0 : 8, o = 2 + 2 * i; i < 32; i += 4) {
      let word = 0;
      for (let k = 0; k < 4; k++, o += 2) {
        const b = src[at + i + k]!;
        text[o] = HEX_DIGIT[b >>> 4]!;
        text[o + 1] = HEX_DIGIT[b & 15]!;
        word = (word << 8) | b;
      }
      words[i >> 2] = word;
    }
    return text.toString('latin1', 0, 66) as Bytes32;
  }

  /** Record a nonce seen elsewhere (e.g. an adopted venue order) so it is never issued again. */
  remember(key: Bytes32): void {
    // one lookup; the oldest is dropped past the window
    if (!this.recent.add(key)) throw new InvariantError(`nonce reused: ${key}`);
  }

  has(nonce: Bytes32): boolean {
    return this.recent.has(nonce);
  }
}
