/**
 * ECDSA nonces computed ahead, for signing orders on the hot path (docs/performance.md#signing-ahead).
 *
 * A secp256k1 signature of digest z with key d and nonce k is r = (k·G).x mod n, s = k⁻¹·(z + r·d)
 * mod n. Everything but the last line depends on k alone: the point multiplication k·G (most of a
 * signature's cost) and the inverse k⁻¹ can be computed in idle time, and a signature then costs two
 * multiplications mod n. The nonces are uniform CSPRNG scalars (rejection-sampled in [1, n)), each
 * handed out once and dropped from the pool before it is used: a nonce used twice would give away
 * the key. Signatures made this way are valid and low-s like RFC 6979 ones, but not byte-identical to
 * them (the nonce is random, not derived from key and digest).
 *
 * The pool lives in the signer's closure, next to the key, and is never shared between signers,
 * threads or processes.
 */
import { randomFillSync } from 'node:crypto';
import type { Ecdsa } from './ecdsa.ts';

/** The order of secp256k1's group. */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const HALF_N = N >> 1n;
const MASK64 = (1n << 64n) - 1n;

interface Ahead {
  /** k⁻¹ mod n */
  kinv: bigint;
  /** r = (k·G).x, below n */
  r: bigint;
  /** r as 32 big-endian bytes */
  rBytes: Buffer;
  /** parity of (k·G).y: the recovery id before low-s normalisation */
  odd: number;
}

export interface AheadNonces {
  /** nonces ready */
  readonly size: number;
  /** Compute up to `count` more nonces now; returns how many are ready. */
  fill(count: number): number;
  /**
   * Sign a 32-byte digest with one nonce from the pool (consumed): r‖s into out[0..64), the
   * recovery id returned. -1 when the pool is empty (the caller signs the usual way).
   */
  sign(digest: Uint8Array, out: Buffer): number;
}

function bigintOf(b: Uint8Array, off: number): bigint {
  const v = Buffer.from(b.buffer, b.byteOffset + off, 32);
  return (v.readBigUInt64BE(0) << 192n) | (v.readBigUInt64BE(8) << 128n) | (v.readBigUInt64BE(16) << 64n) | v.readBigUInt64BE(24);
}

function writeWord(out: Buffer, off: number, v: bigint): void {
  for (let i = 3; i >= 0; i--) {
    out.writeBigUInt64BE(v & MASK64, off + i * 8);
    v >>= 64n;
  }
}

/** a⁻¹ mod n (extended Euclid; a in [1, n)). */
function invertModN(a: bigint): bigint {
  let [r0, r1] = [N, a];
  let [t0, t1] = [0n, 1n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1] = [r1, r0 - q * r1];
    [t0, t1] = [t1, t0 - q * t1];
  }
  return t0 < 0n ? t0 + N : t0;
}

/** A pool of nonces for one key. `ecdsa` computes k·G (its publicKey of k): native or pure. */
export function createAheadNonces(ecdsa: Ecdsa, key: Uint8Array): AheadNonces {
  const d = bigintOf(key, 0);
  const pool: Ahead[] = [];
  let random = Buffer.alloc(0);

  function fill(count: number): number {
    const ks: bigint[] = [];
    const fresh: Omit<Ahead, 'kinv'>[] = [];
    // CSPRNG bytes for the whole fill at once (a few spare for rejected draws), wiped after use
    if (random.length < 32 * (count + 2)) random = Buffer.alloc(32 * (count + 2));
    randomFillSync(random);
    let at = 0;
    while (fresh.length < count) {
      if (at + 32 > random.length) {
        randomFillSync(random);
        at = 0;
      }
      const kBytes = random.subarray(at, at + 32);
      at += 32;
      const k = bigintOf(kBytes, 0);
      if (k === 0n || k >= N) continue;
      const R = ecdsa.publicKey(kBytes);
      const x = bigintOf(R, 0);
      // r = x mod n; an x at or above n (probability ~2^-128) would need recovery id 2 or 3, which v cannot carry
      if (x === 0n || x >= N) continue;
      ks.push(k);
      fresh.push({ r: x, rBytes: Buffer.from(R.subarray(0, 32)), odd: R[63]! & 1 });
    }
    random.fill(0);
    if (ks.length === 0) return pool.length;
    // one inversion for the whole batch (Montgomery's trick): prefix products, invert the last, walk back
    const prefix: bigint[] = new Array<bigint>(ks.length);
    let acc = 1n;
    for (let i = 0; i < ks.length; i++) prefix[i] = acc = (acc * ks[i]!) % N;
    let inv = invertModN(acc);
    for (let i = ks.length - 1; i >= 0; i--) {
      const kinv = i === 0 ? inv : (inv * prefix[i - 1]!) % N;
      inv = (inv * ks[i]!) % N;
      pool.push({ ...fresh[i]!, kinv });
    }
    ks.length = 0;
    return pool.length;
  }

  function sign(digest: Uint8Array, out: Buffer): number {
    const a = pool.pop(); // removed before use: never handed out twice
    if (a === undefined) return -1;
    const z = bigintOf(digest, 0);
    let s = (a.kinv * ((z + a.r * d) % N)) % N;
    if (s === 0n) return -1; // probability ~2^-256; the caller signs the usual way
    let recid = a.odd;
    if (s > HALF_N) {
      s = N - s; // low-s, as the venue and viem expect; the mirrored point has the other parity
      recid ^= 1;
    }
    a.rBytes.copy(out, 0);
    writeWord(out, 32, s);
    return recid;
  }

  return {
    get size() {
      return pool.length;
    },
    fill,
    sign,
  };
}
