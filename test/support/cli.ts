/**
 * `bookmaker ARGS` (bin/bookmaker.js) as a child process run to its end: its exit code, stdout and
 * stderr, whether it succeeded or not. BOOKMAKER_PRIVATE_KEY is cleared so that a key in the test
 * runner's environment never reaches the command.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
/**
 * The `bookmaker` command as installed: it runs the build (dist/) when fresh, the sources through tsx otherwise.
 * `npm test` compiles dist/ first (scripts/test.mjs), so the suite's CLI children start as the package's and the
 * image's do, without tsx's per-module cost; test/package/entry-point.test.ts covers the choice itself.
 */
export const BIN = join(process.cwd(), 'bin', 'bookmaker.js');

/** node's arguments that run `bookmaker ARGS` (for a spawn that needs its own options: cwd, env, stdio). */
export const cliArgs = (args: readonly string[]): string[] => [BIN, ...args];

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function bookmaker(args: string[], o: { timeoutMs?: number; maxBuffer?: number } = {}): Promise<CliResult> {
  try {
    const r = await run(process.execPath, [BIN, ...args], {
      env: { ...process.env, BOOKMAKER_PRIVATE_KEY: '' },
      // a bound for a hang only: at load average ~45 a 24 h backtest of the Kalshi tape took over 120 s
      timeout: o.timeoutMs ?? 300_000,
      maxBuffer: o.maxBuffer ?? 64 << 20,
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as CliResult;
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}
