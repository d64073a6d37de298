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

/**
 * The 32 bytes at `off` as a bigint. Through a hex string: about 250 bytes allocated against ~900
 * for four 64-bit reads shifted together (three times per signature made ahead, once per order
 * signed on the tick).
 */
function bigintOf(b: Uint8Array, off: number): bigint {
  const buf = Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  return BigInt('0x' + buf.toString('hex', off, off + 32));
}

/** v (below 2^256) as 32 big-endian bytes at out[off..off+32), through a hex string like bigintOf */
function writeWord(out: Buffer, off: number, v: bigint): void {
  out.write(v.toString(16).padStart(64, '0'), off, 32, 'hex');
}

/** ⌊x / y⌋ for 0 ≤ x, y < 2^51 (y > 0), exact: the float quotient corrected by one step if rounded */
function quot(x: number, y: number): number {
  let q = Math.floor(x / y);
  const r = x - q * y;
  if (r < 0) q--;
  else if (r >= y) q++;
  return q;
}

/** the textbook extended Euclid on bigints (the fallback, and what invertModN must agree with) */
function euclidInverse(a: bigint): bigint {
  let r0 = N;
  let r1 = a;
  let t0 = 0n;
  let t1 = 1n;
  while (r1 !== 0n) {
    const q = r0 / r1;
    const r = r0 - q * r1;
    r0 = r1;
    r1 = r;
    const t = t0 - q * t1;
    t0 = t1;
    t1 = t;
  }
  return t0 < 0n ? t0 + N : t0;
}

/**
 * a⁻¹ mod n for a in [1, n): Lehmer's extended Euclid. Each round runs the quotient steps on the
 * leading 50 bits as plain numbers (a 2×2 matrix of cofactors) and applies them to the bigints at
 * once, so an inversion makes about 100 bigints instead of the textbook loop's ~600 (29 KB per idle
 * turn between ticks; docs/performance.md#signing-ahead). The result is checked (a·a⁻¹ ≡ 1) and the
 * textbook loop answers if it ever were not. Not constant-time, like the loop it replaced; its input
 * is the product of a whole batch of nonces.
 */
export function invertModN(a: bigint): bigint {
  if (a <= 0n || a >= N) throw new RangeError('invertModN: a must be in [1, n)');
  let r0 = N;
  let r1 = a;
  let t0 = 0n;
  let t1 = 1n;
  while (r1 !== 0n) {
    const f = Number(r0);
    // leading bits of both at one shift: below 2^51, so every product below stays exact
    const shift = f < 2 ** 50 ? 0 : Math.floor(Math.log2(f)) - 49;
    let x = shift === 0 ? f : Number(r0 >> BigInt(shift));
    let y = shift === 0 ? Number(r1) : Number(r1 >> BigInt(shift));
    let A = 1;
    let B = 0;
    let C = 0;
    let D = 1;
    // quotient steps on the leading bits, as a cofactor matrix: with exact values (shift 0) plain Euclid in
    // numbers to the end; else Knuth's test, a step kept only while both bounds of the true quotient agree
    for (;;) {
      let q: number;
      if (shift === 0) {
        if (y === 0) break;
        q = quot(x, y);
      } else {
        if (y + C === 0 || y + D === 0) break;
        q = x + A < 0 || y + C < 0 ? -1 : quot(x + A, y + C);
        const hi = x + B < 0 || y + D < 0 ? -2 : quot(x + B, y + D);
        if (q !== hi) break;
      }
      const nc = A - q * C;
      const nd = B - q * D;
      const ny = x - q * y;
      A = C;
      B = D;
      C = nc;
      D = nd;
      x = y;
      y = ny;
    }
    if (B === 0) {
      // no step could be decided on the leading bits: one textbook step on the bigints
      const q = r0 / r1;
      const r = r0 - q * r1;
      r0 = r1;
      r1 = r;
      const t = t0 - q * t1;
      t0 = t1;
      t1 = t;
      continue;
    }
    const a0 = BigInt(A);
    const b0 = BigInt(B);
    const c0 = BigInt(C);
    const d0 = BigInt(D);
    const r = c0 * r0 + d0 * r1;
    r0 = a0 * r0 + b0 * r1;
    r1 = r;
    const t = c0 * t0 + d0 * t1;
    t0 = a0 * t0 + b0 * t1;
    t1 = t;
  }
  let inv = t0 % N;
  if (inv < 0n) inv += N;
  // r0 is the gcd: 1 for any a in [1, n) (n is prime); a wrong answer here would be a bug, never a signature
  return r0 === 1n && (a * inv) % N === 1n ? inv : euclidInverse(a);
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
      // r's bytes in a buffer of their own: Buffer.from(R.subarray(0, 32)) sliced Node's 8 KB pool, and a few
      // nonces kept waiting in the pool held whole slabs alive (docs/performance/retired-markets.md)
      const rBytes = Buffer.allocUnsafeSlow(32);
      rBytes.set(R.subarray(0, 32));
      fresh.push({ r: x, rBytes, odd: R[63]! & 1 });
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
      // one literal: a spread then a new key gave entries maps of their own (docs/performance/soak-growth.md)
      const f = fresh[i]!;
      pool.push({ r: f.r, rBytes: f.rBytes, odd: f.odd, kinv });
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
