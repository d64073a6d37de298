/**
 * Why a strategy call ran over its time budget: the strategy, or the host. A call of 60 ms on a
 * starved machine is mostly time the main thread waited for a CPU; naming its market `strategy-slow`
 * sends the operator to the strategy when the fix is a core. The judge keeps a sample of the main
 * thread's scheduler figures (./loop-stall.ts) from a timer once a second, and judges a slow call by
 * the window from that sample to now, with the stall judge's own function, so a slow tick and a
 * stall read the same way (docs/operating.md, "A stalled event loop").
 *
 *   const j = new SlowTickJudge();            // j.start() samples once a second (unref'd), returns stop
 *   const s = j.judge();                      // LoopStall of the window that holds the slow call
 *   s.cause                                   // 'busy' | 'cpu-starved' | 'off-cpu' | 'unknown'
 *
 * A slow call reads the figures once (a small /proc read); calls within JUDGE_REUSE_MS share one
 * judgement, so a starved bot with many slow calls a second reads them a few times a second at most.
 */
import { availableParallelism, loadavg } from 'node:os';
import { judgeStall, mainThreadSched, type LoopStall, type ThreadSched } from './loop-stall.ts';

/** how often the reference sample is taken, ms */
export const SLOW_SAMPLE_MS = 1_000;
/** slow calls this close together share one judgement, ms */
export const JUDGE_REUSE_MS = 100;

export interface SlowTickJudgeOptions {
  readonly sched?: () => ThreadSched | null;
  /** monotonic ms */
  readonly now?: () => number;
  readonly load?: () => number;
  readonly cores?: number;
}

export class SlowTickJudge {
  private readonly sched: () => ThreadSched | null;
  private readonly now: () => number;
  private readonly load: () => number;
  private readonly cores: number;
  private ref: { at: number; sched: ThreadSched | null };
  private last: { at: number; stall: LoopStall } | null = null;

  constructor(o: SlowTickJudgeOptions = {}) {
    this.sched = o.sched ?? (() => mainThreadSched());
    this.now = o.now ?? (() => performance.now());
    this.load = o.load ?? (() => loadavg()[0]!);
    this.cores = o.cores ?? availableParallelism();
    this.ref = { at: this.now(), sched: this.sched() };
  }

  /** take the reference sample now (the timer of start() does, once a second) */
  sample(): void {
    this.ref = { at: this.now(), sched: this.sched() };
  }

  /** sample once a second on an unref'd timer; returns its stop */
  start(everyMs: number = SLOW_SAMPLE_MS): () => void {
    const t = setInterval(() => this.sample(), everyMs);
    t.unref();
    return () => clearInterval(t);
  }

  /** the window since the reference sample, judged: what the main thread did around the slow call */
  judge(): LoopStall {
    const now = this.now();
    if (this.last !== null && now - this.last.at < JUDGE_REUSE_MS) return this.last.stall;
    const stall = judgeStall(now - this.ref.at, this.ref.sched, this.sched(), this.load(), this.cores);
    this.last = { at: now, stall };
    return stall;
  }
}
