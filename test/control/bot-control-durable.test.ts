/**
 * An operator action says `persisted: true` only when a later start will read it: a halt written
 * into a ledger file deleted under the process lands in a file nobody will open again, so it is
 * `persisted: false` (it holds this process only, logged at error). And `status` names the holds
 * the bot placed on itself (the ledger cannot be written), which `ctl resume` does not lift.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { BotControl } from '../../src/control/bot-control.ts';
import { silentLogger } from '../../src/core/logger.ts';
import type { Address } from '../../src/model/order.ts';
import { openBotLedger } from '../support/bot-ledger.ts';
import { settableClock } from '../support/venue-order.ts';
import { fakeKernel } from './fake-kernel.ts';

const TRADER = ('0x' + '33'.repeat(20)) as Address;

test('a halt into a deleted ledger file is not persisted; status names the bot holds', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bookmaker-control-'));
  const file = join(dir, 'l.sqlite');
  const ledger = await openBotLedger({ path: file, clock: settableClock(Date.now()), trader: TRADER });
  try {
    const { kernel, selfHolds } = fakeKernel();
    const control = new BotControl({
      kernel,
      ledger,
      logger: silentLogger,
      config: { file: '' } as never,
      loadConfig: async () => ({}) as never,
      selectMarkets: async () => [],
      applyMarkets: async () => ({ started: [], retired: [], waiting: [], changed: [] }),
    });
    assert.deepEqual(control.halt('first').body, { halted: true, persisted: true });
    assert.deepEqual(control.resume(null, null).body, { resumed: 'all', persisted: true });

    rmSync(file);
    for (const ext of ['-wal', '-shm']) rmSync(file + ext, { force: true });
    // the write goes to the open, unlinked file: it "succeeds", and no start will ever read it
    assert.deepEqual(control.halt('after the file was deleted').body, { halted: true, persisted: false });
    assert.equal(kernel.halted, true, 'the halt still holds this process');
    assert.equal((control.resume(null, null).body as { persisted: boolean }).persisted, false);

    selfHolds.set('ledger', 'the ledger file is gone');
    assert.deepEqual(control.status().holds, [{ hold: 'ledger', reason: 'the ledger file is gone' }]);
  } finally {
    ledger.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
