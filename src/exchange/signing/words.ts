/**
 * Writers of 32-byte ABI words into a Buffer. Values have been validated by the caller.
 */
const MASK64 = (1n << 64n) - 1n;
const TWO64 = 1n << 64n;

export function writeUint256(buf: Buffer, off: number, v: bigint): void {
  if (v < TWO64) {
    buf.fill(0, off, off + 24);
    buf.writeBigUInt64BE(v, off + 24);
    return;
  }
  for (let i = 3; i >= 0; i--) {
    buf.writeBigUInt64BE(v & MASK64, off + i * 8);
    v >>= 64n;
  }
}

/** uint8 / bool words. */
export function writeSmallUint(buf: Buffer, off: number, v: number): void {
  buf.fill(0, off, off + 31);
  buf[off + 31] = v;
}

/** An address word: 12 zero bytes then the 20 address bytes. */
export function writeAddress(buf: Buffer, off: number, addr: string): void {
  buf.fill(0, off, off + 12);
  buf.write(addr.slice(2), off + 12, 20, 'hex');
}

export function writeBytes32Hex(buf: Buffer, off: number, hex: string): void {
  buf.write(hex.slice(2), off, 32, 'hex');
}
