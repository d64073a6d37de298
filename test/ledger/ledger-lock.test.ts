/**
 * One writer per ledger: a second writer is refused naming the holder, readers still
 * read, a holder killed with SIGKILL leaves no stale lock, and the files are created 0600.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { withTmpLedger } from './tmp-ledger.ts';
import { test } from 'node:test';
import { systemClock } from '../../src/core/clock.ts';
import { acquireLedgerLock, ledgerLockHolder, LedgerLockedError, lockPathOf } from '../../src/ledger/ledger-lock.ts';
import { openLedger } from '../../src/ledger/ledger.ts';

test('a second writer on the same ledger is refused, naming the holder; a reader still reads', () => {
  withTmpLedger((t) => {
    const a = openLedger({ path: t.file, clock: systemClock });
    assert.deepEqual(ledgerLockHolder(t.file), a.lock!.holder);
    assert.equal(a.lock!.holder.pid, process.pid);
    assert.equal(a.lock!.holder.host, hostname());
    assert.throws(
      () => openLedger({ path: t.file, clock: systemClock }),
      (e: unknown) => e instanceof LedgerLockedError && e.holder?.pid === process.pid && /in use by another bookmaker \(pid \d+ on /.test(e.message),
    );
    a.setMeta('k', 'v');
    const r = openLedger({ path: t.file, clock: systemClock, mustExist: true, readonly: true });
    assert.equal(r.meta('k'), 'v');
    r.close();
    // the refusal did not disturb the holder
    assert.deepEqual(ledgerLockHolder(t.file), a.lock!.holder);
    a.close();
    assert.equal(ledgerLockHolder(t.file), null, 'released at close');
    const b = openLedger({ path: t.file, clock: systemClock });
    assert.equal(b.meta('k'), 'v');
    b.close();
  });
});

test('ledgerLockHolder: null without a lock file (and creates none), and for :memory:', () => {
  withTmpLedger((t) => {
    assert.equal(ledgerLockHolder(t.file), null);
    assert.throws(() => statSync(lockPathOf(t.file)), /ENOENT/);
    assert.equal(ledgerLockHolder(':memory:'), null);
    const l = acquireLedgerLock(t.file);
    l.release();
    l.release();
    assert.equal(ledgerLockHolder(t.file), null);
  });
});

test('a holder keeps the lock after its ledger is garbage-collected; killed with SIGKILL it leaves no stale lock: the next writer starts', async () => {
  await withTmpLedger(async (t) => {
    const script = `import { openLedger } from ${JSON.stringify(new URL('../../src/ledger/ledger.ts', import.meta.url).href)};
const l = openLedger({ path: ${JSON.stringify(t.file)}, clock: { now: () => Date.now(), setTimeout: (f, ms) => { const h = setTimeout(f, ms); return () => clearTimeout(h); } } });
l.setMeta('child', String(process.pid));
// nothing refers to the ledger once this module has run: collected, it must not take the lock with it
setTimeout(() => { globalThis.gc(); process.stdout.write('held\\n'); }, 0);
setInterval(() => {}, 1000);`;
    // stderr piped, not inherited: a child left running must not hold the test file's own output open
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise((r) => child.once('exit', r));
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => d.toString().includes('held') && resolve());
        child.on('exit', (c) => reject(new Error(`child exited ${c}: ${stderr}`)));
      });
      assert.equal(ledgerLockHolder(t.file)?.pid, child.pid, 'the live child holds it');
      let refused: unknown = null;
      try {
        openLedger({ path: t.file, clock: systemClock }).close();
      } catch (e) {
        refused = e;
      }
      if (!(refused instanceof LedgerLockedError && refused.holder?.pid === child.pid)) {
        // evidence for the failure: had the child ended (killed from outside, crashed) or does it still run?
        await new Promise((r) => setTimeout(r, 200));
        const ended = child.exitCode !== null || child.signalCode !== null;
        assert.fail(
          `a second writer was not refused (${refused ?? 'it opened'}) while the child ${ended ? `had ended (${child.exitCode ?? child.signalCode})` : 'still ran'}; its stderr: ${stderr || '(none)'}`,
        );
      }
    } finally {
      // stopped whatever failed above: a child left alive kept this file from ever ending
      child.kill('SIGKILL');
      await exited;
    }
    assert.equal(ledgerLockHolder(t.file), null, 'the kernel released it with the process');
    const l = openLedger({ path: t.file, clock: systemClock });
    assert.equal(l.meta('child'), String(child.pid));
    l.close();
  });
});

test('ledger, WAL and lock files are created 0600', () => {
  withTmpLedger((t) => {
    const l = openLedger({ path: t.file, clock: systemClock });
    l.setMeta('k', 'v');
    for (const f of [t.file, `${t.file}-wal`, `${t.file}-shm`, lockPathOf(t.file)]) assert.equal(statSync(f).mode & 0o777, 0o600, f);
    l.close();
  });
});

test('a lock file deleted by hand: the holder takes the lock again, or, when another writer got in first, reports two writers', () => {
  withTmpLedger((t) => {
    const a = openLedger({ path: t.file, clock: systemClock });
    rmSync(lockPathOf(t.file));
    assert.equal(a.problem(), null, 'taken again on a new lock file');
    assert.equal(ledgerLockHolder(t.file)?.pid, process.pid);
    assert.throws(() => openLedger({ path: t.file, clock: systemClock }), LedgerLockedError);
    rmSync(lockPathOf(t.file));
    const b = openLedger({ path: t.file, clock: systemClock }); // the hole a deleted lock file opens
    assert.match(a.problem()?.reason ?? '', /was deleted or replaced and another process now holds the ledger .*two writers/);
    b.close();
    a.lock!.release();
  });
});
