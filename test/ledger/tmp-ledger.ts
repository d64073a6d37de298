/**
 * A ledger file's path in a temp folder of its own for the ledger's tests: `body({ dir, file })` runs
 * (sync or async), then the folder is removed, whatever the body did.
 *
 *   test('…', () => withTmpLedger((t) => { const l = openLedger({ path: t.file, clock }); … }));
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function withTmpLedger<T>(body: (t: { dir: string; file: string }) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'bookmaker-ledger-'));
  const done = () => rmSync(dir, { recursive: true, force: true });
  let out: T;
  try {
    out = body({ dir, file: join(dir, 'l.sqlite') });
  } catch (e) {
    done();
    throw e;
  }
  if (out instanceof Promise) return out.finally(done) as T;
  done();
  return out;
}
