/**
 * What holds the next start, and in which record: the kill-switch latch, the halt and the pauses, from
 * the ledger and the latch file. `bookmaker doctor` (holds check) and `bookmaker ledger backup` (its
 * note) show the same lines; before, doctor showed no hold at all and backup noted only a latch kept in
 * the latch file alone.
 */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { asyncScheduler } from 'rxjs';
import { runLedgerAdmin } from '../../src/cli/commands/ledger-admin.ts';
import { parseConfigText } from '../../src/config/load-config.ts';
import type { Clock } from '../../src/core/clock.ts';
import { checkHolds } from '../../src/doctor/local-checks.ts';
import { heldLines, heldState, holdsAny } from '../../src/ledger/held-state.ts';
import { latchPathOf, writeHoldsFile, writeLatchFile } from '../../src/ledger/latch-file.ts';
import { openLedger } from '../../src/ledger/ledger.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { withTmpLedger } from './tmp-ledger.ts';

const T0 = 1_800_000_000_000;
const M = ('0x' + '11'.repeat(32)) as Bytes32;
const clock: Clock = { now: () => T0, scheduler: asyncScheduler, setTimeout: () => () => undefined };

async function doctorHolds(dir: string, ledger: string): Promise<ReturnType<typeof checkHolds>> {
  const file = join(dir, 'bot.yaml');
  const text = `venue: testnet\ndefaults:\n  strategy:\n    name: bands\n  risk:\n    maxPosition: 100\nmarkets:\n  - all: true\nledger:\n  path: ${ledger}\n`;
  writeFileSync(file, text);
  return checkHolds(await parseConfigText(text, file, { env: {} }), false);
}

async function backupNote(ledger: string, out: string): Promise<string> {
  let err = '';
  // the command's own streams, not process.stdout swapped: the test runner reports on process.stdout
  assert.equal(await runLedgerAdmin('backup', ledger, { out, retainDays: 30, json: false }, { stdout: () => undefined, stderr: (s) => (err += s) }), 0);
  return err;
}

test('nothing held: doctor says the next start quotes; backup notes nothing', async () => {
  await withTmpLedger(async (t) => {
    openLedger({ path: t.file, clock }).close();
    const h = heldState(t.file);
    assert.equal(holdsAny(h), false);
    const r = await doctorHolds(t.dir, t.file);
    assert.equal(r.result, 'ok');
    assert.match(r.detail, /^none: the next start quotes/);
    assert.equal(await backupNote(t.file, join(t.dir, 'b.sqlite')), '');
  });
});

test('holds in the latch file only (a new ledger beside an old latch file): doctor and backup name each, with where it is and what lifts it', async () => {
  await withTmpLedger(async (t) => {
    openLedger({ path: t.file, clock }).close(); // an empty ledger: it holds nothing
    writeLatchFile(t.file, { reason: 'KILL_DRAWDOWN', detail: 'drawdown 60 > 50', at: T0 });
    writeHoldsFile(t.file, { halt: { reason: 'incident 9', at: T0, source: 'admin' }, pauses: new Map([[M, { reason: 'news', at: T0, source: 'admin' }]]) });
    const h = heldState(t.file);
    assert.equal(h.latch?.from, 'latch file');
    assert.equal(h.halt?.from, 'latch file');
    assert.equal(h.pauses.get(M)?.from, 'latch file');
    const lines = heldLines(h, t.file);
    assert.match(
      lines[0]!,
      /^kill switch latched since .*: KILL_DRAWDOWN \(drawdown 60 > 50\), in the latch file only; bookmaker ctl clear-kill --reason TEXT lifts it$/,
    );
    assert.match(lines[1]!, /^halted by the operator since .*: incident 9, in the latch file only; bookmaker ctl resume lifts it once the bot runs$/);
    assert.match(lines[2]!, new RegExp(`^market ${M} paused: news, in the latch file only; bookmaker ctl resume ${M} lifts it`));

    const r = await doctorHolds(t.dir, t.file);
    assert.equal(r.result, 'warn');
    assert.match(r.detail, /^the next start does not quote \(the kill switch is latched, halted, 1 market\(s\) paused; read the ledger and its latch file\)/);
    for (const l of lines) assert.ok(r.detail.includes(l), `doctor shows: ${l}`);

    const note = await backupNote(t.file, join(t.dir, 'b.sqlite'));
    assert.match(note, new RegExp(`^note: the latch file ${latchPathOf(t.file)} holds what the ledger does not: copy that file too`));
    for (const l of lines.slice(0, 3)) assert.ok(note.includes(`  ${l}\n`), `backup notes: ${l}`);
  });
});

test('holds in both records are not "latch file only"; a deleted ledger leaves the latch file to read', async () => {
  await withTmpLedger(async (t) => {
    const l = openLedger({ path: t.file, clock });
    l.operatorAction('halt', null, 'desk says stop', 'admin', 'every quote pulled until resume');
    l.close();
    const h = heldState(t.file);
    assert.equal(h.halt?.from, 'ledger and latch file');
    assert.doesNotMatch(heldLines(h, t.file).join('\n'), /only/);
    assert.equal(await backupNote(t.file, join(t.dir, 'b.sqlite')), '');

    for (const f of [t.file, `${t.file}-wal`, `${t.file}-shm`]) rmSync(f, { force: true });
    const gone = heldState(t.file);
    assert.match(gone.ledgerUnread ?? '', /does not exist/);
    assert.equal(gone.halt?.reason, 'desk says stop');
    assert.equal(gone.halt?.from, 'latch file');
    const r = await doctorHolds(t.dir, t.file);
    assert.equal(r.result, 'warn');
    assert.match(r.detail, /read the latch file only; the ledger: .* does not exist\)/);
  });
});

test('a damaged latch file reads as latched and halted, and each says both commands clear it', async () => {
  await withTmpLedger(async (t) => {
    openLedger({ path: t.file, clock }).close();
    writeFileSync(latchPathOf(t.file), 'not a latch record');
    const lines = heldLines(heldState(t.file), t.file);
    assert.match(
      lines[0]!,
      /^kill switch latched: LATCH_FILE_DAMAGED \(.*\), in the latch file only; it needs both bookmaker ctl clear-kill and bookmaker ctl resume$/,
    );
    assert.match(
      lines[1]!,
      /^halted by the latch file, which cannot be read \(fail closed\): latch file damaged \(fail closed\): needs both .*, in the latch file only; it needs both bookmaker ctl clear-kill and bookmaker ctl resume$/,
    );
  });
});
