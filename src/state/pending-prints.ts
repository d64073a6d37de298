/**
 * A market's prints waiting for their markout at the toxicity horizon (./edge-state.ts): one slot of
 * four numbers per print (time, the passive side's sign, price, size) in a buffer shared by every
 * state that holds a window of it, so a print costs a slot and no object.
 *
 * Entry points: `PrintBuffer.EMPTY`, `pushPrint(buf, head, tail, …)` → the buffer and window after one
 * more print, and the reads `printTs`, `printSign`, `printPrice`, `printSize` of a slot.
 *
 * How (as ./mid-history.ts does for the mids): a state's pending prints are the window [head, tail)
 * of a buffer that only ever grows at its end. A push from the window that ends at the buffer's end
 * writes the next slot in place: every window made before it reads only slots below its own end,
 * which are never written again, so an earlier state stays as it was. A push from any other window
 * (a fork), or one that finds the buffer full, copies the window into a new buffer of twice the
 * window's bound: one copy of at most `max` slots every `max` pushes.
 */

import { doublesOf } from './mid-history.ts';

const SLOT = 4;

export class PrintBuffer {
  static readonly EMPTY: PrintBuffer = new PrintBuffer([]);
  /** slots written so far (the next push from a window ending here writes slot `end`) */
  end = 0;
  /**
   * The slots' numbers in an array of doubles on the heap (8 bytes a number, as a Float64Array's;
   * ./mid-history.ts doublesOf): a Float64Array of that size has its store off the heap, and making
   * one was ~0.2 % of a backtest run's CPU profile for ~43 buffers a run.
   */
  constructor(readonly data: number[]) {}
  get capacity(): number {
    return this.data.length / SLOT;
  }
}

/** A window of a buffer after a push: the buffer (new after a copy), the window, and whether the oldest print was dropped. */
export interface PrintWindow {
  buf: PrintBuffer;
  head: number;
  tail: number;
  dropped: boolean;
}

/** One reusable answer of pushPrint (read at once by the caller: no object per print). */
const OUT: PrintWindow = { buf: PrintBuffer.EMPTY, head: 0, tail: 0, dropped: false };

/**
 * The window [head, tail) of `buf` with one more print, keeping at most `max` (the oldest dropped
 * beyond it). The answer is a shared object, valid until the next call.
 */
export function pushPrint(buf: PrintBuffer, head: number, tail: number, ts: number, sign: 1 | -1, price: number, size: number, max: number): PrintWindow {
  let dropped = false;
  if (tail - head >= max) {
    head = tail - max + 1;
    dropped = true;
  }
  if (buf.end !== tail || tail >= buf.capacity) {
    const len = tail - head;
    const cap = Math.max(16, Math.min(2 * max, Math.max(4 * (len + 1), 16)));
    // a power of two of slots: a handful of lengths over a run, each one template of doublesOf
    const nb = new PrintBuffer(doublesOf(powerOfTwoAtLeast(Math.max(cap, len + 1)) * SLOT));
    const from = buf.data;
    const to = nb.data;
    for (let i = head * SLOT, o = 0; i < tail * SLOT; i++, o++) to[o] = from[i]!;
    nb.end = len;
    buf = nb;
    head = 0;
    tail = len;
  }
  const d = buf.data;
  const i = tail * SLOT;
  d[i] = ts;
  d[i + 1] = sign;
  d[i + 2] = price;
  d[i + 3] = size;
  buf.end = tail + 1;
  OUT.buf = buf;
  OUT.head = head;
  OUT.tail = tail + 1;
  OUT.dropped = dropped;
  return OUT;
}

/** The least power of two at least `n` (n ≥ 1). */
function powerOfTwoAtLeast(n: number): number {
  let p = 16;
  while (p < n) p *= 2;
  return p;
}

export const printTs = (b: PrintBuffer, k: number): number => b.data[k * SLOT]!;
export const printSign = (b: PrintBuffer, k: number): number => b.data[k * SLOT + 1]!;
export const printPrice = (b: PrintBuffer, k: number): number => b.data[k * SLOT + 2]!;
export const printSize = (b: PrintBuffer, k: number): number => b.data[k * SLOT + 3]!;
