/**
 * Output files written whole or not at all (`--json`, `--report`, `--fills-csv` of backtest, sweep and
 * calibrate): to a temporary file beside the target, then renamed over it, so a full disk or a killed
 * process never leaves a half-written file where a reader looks (the file there is the previous run's,
 * or none). `checkOutputs` tries each folder before a run, so a path that cannot be written is refused
 * before the work, not after it.
 */
import { closeSync, openSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { makeFolders } from '../core/make-folders.ts';
import { BadInputError } from '../model/errors.ts';
import type { ParsedArgs } from './args.ts';

/** The output flags a backtest, a synthetic run or a calibration may write. */
export const OUTPUT_FLAGS = ['json', 'report', 'fills-csv'] as const;

const tmpPath = (path: string): string => join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);

/** "ENOSPC: no space left on device" (an fs error's message without the call and path after its comma). */
const reason = (e: unknown): string => (e instanceof Error ? e.message.split(', ')[0]! : String(e));

function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // its folder may not exist: nothing to remove
  }
}

/**
 * Refuse, before any work, an output path that cannot be written: a folder, or a place where its folder
 * cannot be made or a file cannot be created (read-only, missing permission, no such device). Makes
 * the folders; leaves no file behind.
 */
export function checkOutputs(o: ParsedArgs['options'], flags: readonly string[] = OUTPUT_FLAGS): void {
  for (const flag of flags) {
    const path = o[flag];
    if (typeof path !== 'string' || path === '-') continue;
    const what = `a file path that can be written (${path})`;
    let isDir = false;
    try {
      isDir = statSync(path).isDirectory();
    } catch {
      // no such file yet: fine
    }
    if (isDir || path.endsWith('/')) throw new BadInputError(`--${flag}`, `a file path, not a folder`, path);
    const tmp = tmpPath(path);
    try {
      makeFolders(dirname(path));
      closeSync(openSync(tmp, 'wx'));
      removeQuietly(tmp);
    } catch (e) {
      removeQuietly(tmp);
      throw new BadInputError(`--${flag}`, what, reason(e));
    }
  }
}

/**
 * Write `text` to `path` whole, making its folder: a temporary file beside it, renamed over it. On a
 * failure (a full disk) the temporary file is removed, the file at `path` is left as it was, and the
 * error names the flag and the path.
 */
export function writeOut(path: string, text: string, flag = 'output'): void {
  const tmp = tmpPath(path);
  try {
    makeFolders(dirname(path));
    writeFileSync(tmp, text);
    renameSync(tmp, path);
  } catch (e) {
    removeQuietly(tmp);
    throw new Error(`--${flag}: could not write ${path} (${reason(e)}); nothing was written there`, { cause: e });
  }
}
