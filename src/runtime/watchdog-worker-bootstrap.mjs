// Worker-thread entry of the watchdog when running from the sources (the build starts
// ./watchdog-worker.js directly): registers the TypeScript loader (tsx) in this thread, then
// loads ./watchdog-worker.ts. A worker does not inherit the loader the CLI registered, and Node 20
// does not honour `--import` in a worker's execArgv (see backtest/sweep-worker-bootstrap.mjs).
import { register } from 'tsx/esm/api';

register();
await import(new URL('./watchdog-worker.ts', import.meta.url).href);
