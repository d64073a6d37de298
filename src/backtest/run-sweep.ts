/**
 * Runs a sweep's jobs over `workers` worker threads, handing out one job
 * at a time so fast and slow combinations balance; results come back in grid order whatever the
 * finishing order, so the ranked table is deterministic. `workers: 0` runs in this thread. Workers
 * start from ./sweep-worker-bootstrap.mjs, which registers tsx in the thread.
 */
import { Worker } from 'node:worker_threads';
import { COMPILED } from '../core/source-ext.ts';
import { expandGrid, type SweepResult, type SweepSpec } from './sweep-grid.ts';
import { runSweepJob, type SweepJobRequest, type SweepJobResponse } from './sweep-job.ts';

export interface SweepOptions {
  readonly configFile: string;
  readonly data: string;
  readonly from?: number;
  readonly to?: number;
  readonly spec: SweepSpec;
  readonly workers: number;
  /** run only these grid indices (a shard, src/backtest/sweep-shard.ts); default all */
  readonly only?: readonly number[];
  readonly onProgress?: (done: number, total: number) => void;
  /** Ctrl-C: hand out no further job; the runs under way finish, and only the finished runs are returned */
  readonly signal?: AbortSignal;
}

export async function runSweep(o: SweepOptions): Promise<SweepResult[]> {
  const combos = expandGrid(o.spec.grid);
  const keep = o.only ? new Set(o.only) : null;
  const all: SweepJobRequest[] = combos.map((combo, index) => ({
    configFile: o.configFile,
    data: o.data,
    ...(o.from !== undefined ? { from: o.from } : {}),
    ...(o.to !== undefined ? { to: o.to } : {}),
    fast: o.spec.fast,
    windows: o.spec.windows,
    blockSeconds: o.spec.blockSeconds,
    index,
    combo,
  }));
  const jobs = keep ? all.filter((j) => keep.has(j.index)) : all;
  const results = new Map<number, SweepJobResponse>();
  let done = 0;
  if (o.workers <= 0) {
    for (const j of jobs) {
      if (o.signal?.aborted) break;
      results.set(j.index, await runSweepJob(j));
      o.onProgress?.(++done, jobs.length);
    }
  } else {
    let next = 0;
    const n = Math.min(o.workers, jobs.length);
    await Promise.all(
      Array.from(
        { length: n },
        () =>
          new Promise<void>((resolve, reject) => {
            // from sources the worker needs tsx registered in its thread (the bootstrap); the build runs as is
            const w = new Worker(new URL(COMPILED ? './sweep-worker.js' : './sweep-worker-bootstrap.mjs', import.meta.url));
            const feed = (): void => {
              if (next < jobs.length && !o.signal?.aborted) w.postMessage(jobs[next++]!);
              else void w.terminate().then(() => resolve());
            };
            w.on('message', (res: SweepJobResponse) => {
              results.set(res.index, res);
              o.onProgress?.(++done, jobs.length);
              feed();
            });
            w.on('error', reject);
            w.on('online', feed);
          }),
      ),
    );
  }
  // an interrupted sweep leaves holes: only the runs that finished are returned, in grid order
  return jobs.flatMap((j) => {
    const r = results.get(j.index);
    return r
      ? [
          {
            index: j.index,
            combo: combos[j.index]!,
            summary: r.summary,
            ...(r.windowPnl ? { windowPnl: r.windowPnl } : {}),
            ...(r.blocks ? { blocks: r.blocks } : {}),
            ...(r.error ? { error: r.error } : {}),
          },
        ]
      : [];
  });
}
