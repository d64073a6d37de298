// Worker-thread entry of a sweep: registers the TypeScript loader (tsx) in this thread, then loads
// the worker (./sweep-worker.ts). A worker does not inherit the loader the CLI registered, and
// Node 20 does not honour `--import` in a worker's execArgv, hence this small bootstrap.
import { register } from 'tsx/esm/api';

register();
await import(new URL('./sweep-worker.ts', import.meta.url).href);
