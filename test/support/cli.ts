/**
 * `bookmaker ARGS` (bin/bookmaker.js) as a child process run to its end: its exit code, stdout and
 * stderr, whether it succeeded or not. BOOKMAKER_PRIVATE_KEY is cleared so that a key in the test
 * runner's environment never reaches the command.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const BIN = join(process.cwd(), 'bin', 'bookmaker.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function bookmaker(args: string[], o: { timeoutMs?: number; maxBuffer?: number } = {}): Promise<CliResult> {
  try {
    const r = await run(process.execPath, [BIN, ...args], {
      env: { ...process.env, BOOKMAKER_PRIVATE_KEY: '' },
      timeout: o.timeoutMs ?? 120_000,
      maxBuffer: o.maxBuffer ?? 64 << 20,
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as CliResult;
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}
