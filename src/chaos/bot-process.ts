/**
 * Start, stop and kill the bot child (src/chaos/bot-child.ts). Its stdout and stderr are appended to a
 * log file (so the security checks can search every byte it wrote) and its IPC messages go to a
 * callback.
 *
 *   const p = await spawnBot({ configPath, baseUrl, env, logFile, onMessage });   // resolves once ready
 *   p.kill9();  await p.exited;     // crash
 *   await p.stop(30_000);           // SIGTERM: cancel all, exit code
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { COMPILED, SOURCE_EXT } from '../core/source-ext.ts';
import { readChildMessage, type ChildMessage, type ParentMessage } from './child-messages.ts';

const CHILD = fileURLToPath(new URL(`./bot-child${SOURCE_EXT}`, import.meta.url));
/** the child runs the build as is, or the sources through tsx */
const LOADER = COMPILED ? [] : ['--import', 'tsx'];

export interface SpawnBotOptions {
  configPath: string;
  baseUrl: string;
  /** the child's whole environment (keys go here, never on the command line) */
  env: NodeJS.ProcessEnv;
  logFile: string;
  onMessage: (m: ChildMessage) => void;
  /** how long to wait for `ready` (default 60 s) */
  readyTimeoutMs?: number;
  /** extra Node.js flags for the child (benchmarks: `--cpu-prof`, `--cpu-prof-dir=DIR`) */
  nodeArgs?: readonly string[];
}

export interface BotProcess {
  readonly pid: number;
  readonly trader: string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill9(): void;
  /** SIGTERM and wait; SIGKILL after the timeout. Resolves with the exit code (null when killed). */
  stop(timeoutMs: number): Promise<number | null>;
  request(m: ParentMessage): void;
}

export function spawnBot(o: SpawnBotOptions): Promise<BotProcess> {
  const log = createWriteStream(o.logFile, { flags: 'a' });
  const child: ChildProcess = spawn(process.execPath, [...(o.nodeArgs ?? []), ...LOADER, CHILD, o.configPath, o.baseUrl], {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env: o.env,
  });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      // let the pipes drain into the log before closing it
      setTimeout(() => log.end(), 50);
      resolve({ code, signal });
    });
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`bot child did not become ready within ${o.readyTimeoutMs ?? 60_000} ms (see ${o.logFile})`));
    }, o.readyTimeoutMs ?? 60_000);
    child.on('message', (raw: ChildMessage) => {
      const m = readChildMessage(raw);
      o.onMessage(m);
      if (m.type === 'ready') {
        clearTimeout(timer);
        resolve({
          pid: child.pid!,
          trader: m.trader,
          exited,
          kill9: () => void child.kill('SIGKILL'),
          async stop(timeoutMs) {
            child.kill('SIGTERM');
            const t = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
            const r = await exited;
            clearTimeout(t);
            return r.code;
          },
          request: (msg) => {
            if (child.connected) child.send(msg);
          },
        });
      }
    });
    void exited.then(async (r) => {
      clearTimeout(timer);
      // the log's last lines say why (secrets are scrubbed by the child and redacted by its logger),
      // so a run whose work directory is gone afterwards still explains itself
      await new Promise((res) => setTimeout(res, 100));
      let tail = '';
      try {
        tail = readFileSync(o.logFile, 'utf8').slice(-1_500).trim();
      } catch {
        /* no log */
      }
      reject(new Error(`bot child exited before ready (code ${r.code}, signal ${r.signal}; see ${o.logFile})${tail ? `\n--- log tail ---\n${tail}` : ''}`));
    });
  });
}
