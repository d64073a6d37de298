/**
 * Fresh random values for signed messages. Order nonces are keccak256 of 32 CSPRNG bytes (as the SDK
 * does), so two orders never share one; cancels address an order by (trader, nonce).
 */
import { randomFillSync } from 'node:crypto';
import type { Bytes32 } from '../../model/order.ts';
import type { KeccakFn } from './keccak.ts';
import { bytesToHex } from './hex.ts';

// Random bytes are drawn in blocks: one syscall per 256 nonces instead of one per nonce.
const POOL = Buffer.alloc(32 * 256);
let poolPos = POOL.length;

function random32(): Buffer {
  if (poolPos >= POOL.length) {
    randomFillSync(POOL);
    poolPos = 0;
  }
  const out = Buffer.from(POOL.subarray(poolPos, poolPos + 32));
  POOL.fill(0, poolPos, poolPos + 32); // a used block is never handed out twice, even by mistake
  poolPos += 32;
  return out;
}

/** bytes32 order nonce = keccak256(32 CSPRNG bytes). */
export function freshOrderNonce(keccak256: KeccakFn): Bytes32 {
  return bytesToHex(keccak256(random32())) as Bytes32;
}

/** A random unsigned integer of `bytes` bytes, big-endian (uint128 for BatchWithdraw, 64 bits for Permit2). */
export function randomUint(bytes: number): bigint {
  const b = Buffer.alloc(bytes);
  randomFillSync(b);
  return BigInt(`0x${b.toString('hex')}`);
}
