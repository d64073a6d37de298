/**
 * Worker-thread side of a sweep: receives { config, data, from, to, fast, jobs: [index, combo][] }
 * and answers one message per job with the run's summary (or its error). The recording is loaded
 * once per worker; each job re-reads the config with the combo's overrides.
 * Started by ./run-sweep.ts through ./sweep-worker-bootstrap.mjs, which registers tsx in the thread.
 */
import { parentPort } from 'node:worker_threads';
import { runSweepJob, type SweepJobRequest } from './sweep-job.ts';

parentPort?.on('message', (msg: SweepJobRequest | { stop: true }) => {
  if ('stop' in msg) {
    parentPort!.close();
    return;
  }
  void runSweepJob(msg).then((res) => parentPort!.postMessage(res));
});
