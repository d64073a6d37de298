/**
 * `bookmaker sim` as a child process, as an operator starts it: resolved once it prints its
 * `listening <base-url>` line (docs/architecture.md#stable-interfaces), rejected (the child killed)
 * when it exits first or does not listen in time (by default two minutes: a guard against a hang only, since a
 * busy machine may take many seconds to start a sim).
 *
 *   const sim = await spawnListening(cliArgs(['sim', '--port', '0']));
 *   await fetch(`${sim.base}/markets`); sim.child.kill('SIGTERM'); await sim.exited;
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';

export interface ListeningSim {
  child: ChildProcessByStdio<null, Readable, Readable>;
  /** the base URL of the listening line */
  base: string;
  /** the exit code, once it exits */
  exited: Promise<number | null>;
  stdout(): string;
  stderr(): string;
}

/** `node ARGS` (a sim command line), resolved with its base URL once it listens. */
export async function spawnListening(args: string[], timeoutMs = 120_000): Promise<ListeningSim> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    const base = await new Promise<string>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no listening line within ${timeoutMs / 1000} s; stdout: ${out}; stderr: ${err}`)), timeoutMs);
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /^listening (http:\/\/127\.0\.0\.1:\d+\/v2)$/m.exec(out);
        if (m) {
          clearTimeout(t);
          resolve(m[1]!);
        }
      });
      void exited.then((code) => {
        clearTimeout(t);
        reject(new Error(`sim exited ${code} before listening; stderr: ${err}`));
      });
    });
    return { child, base, exited, stdout: () => out, stderr: () => err };
  } catch (e) {
    if (child.exitCode === null) child.kill('SIGKILL');
    throw e;
  }
}

/** `node ARGS` run to its exit: the exit code and what it wrote on stderr (a refused command line). */
export function runToExit(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stderr })));
}
