/**
 * The account's pooled toxicity kept in the ledger (src/ledger/toxicity-pool-checkpoint.ts): saved
 * with the marks and at stop, read back into the store's first state at the next start, so a
 * restarted bot's guard keeps the evidence it stopped with; a row that is not a pool is ignored
 * (logged) and the pool starts empty.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { foldMarkout, NO_TOXICITY } from '../../src/state/edge-state.ts';
import { openLedger } from '../../src/ledger/ledger.ts';
import { loadToxicityPool, parseToxicityPool, saveToxicityPool } from '../../src/ledger/toxicity-pool-checkpoint.ts';
import { silentLogger } from '../../src/core/logger.ts';
import { openBotLedger } from '../support/bot-ledger.ts';
import { T0, TRADER, settableClock } from '../support/venue-order.ts';
import { withTmpLedger } from './tmp-ledger.ts';

const clock = settableClock();
const FIGURES = { peakPnl: null, day: null, dayStartPnl: null };
/** three fills' markouts at 10 s, one picked off */
const POOL = [-200_000, 15_000, 12_000].reduce((p, m, i) => foldMarkout(p, T0 + i * 20_000, m, 10, 1_800_000, 50_000), NO_TOXICITY);

describe('the toxicity pool in the ledger', () => {
  it('saved at stop (with the marks), it is the next start’s pool; a ledger without one starts empty', async () => {
    await withTmpLedger(async ({ dir }) => {
      clock.t = T0;
      const path = join(dir, 'l.sqlite');
      const bl = await openBotLedger({ path, clock, trader: TRADER });
      assert.equal(bl.initialState([]).toxicityPool, NO_TOXICITY, 'a new ledger: no evidence');
      const stop = bl.startMarks(
        bl.books(),
        () => FIGURES,
        10_000,
        () => POOL,
      );
      clock.t = T0 + 60_000;
      stop();
      bl.close();
      const again = await openBotLedger({ path, clock, trader: TRADER });
      assert.deepEqual(again.initialState([]).toxicityPool, POOL);
      again.close();
    });
  });

  it('without a pool getter the marks write none (the earlier behaviour)', async () => {
    await withTmpLedger(async ({ dir }) => {
      const path = join(dir, 'l.sqlite');
      const bl = await openBotLedger({ path, clock, trader: TRADER });
      bl.startMarks(bl.books(), () => FIGURES, 10_000)();
      bl.close();
      const again = await openBotLedger({ path, clock, trader: TRADER });
      assert.equal(again.initialState([]).toxicityPool, NO_TOXICITY);
      again.close();
    });
  });

  it('a row that is not a pool is ignored with a warning: the pool starts empty', () => {
    withTmpLedger(({ file }) => {
      const l = openLedger({ path: file, clock });
      const warned: string[] = [];
      const log = { ...silentLogger, info: () => undefined, warn: (_o: unknown, msg: string) => warned.push(msg) } as unknown as typeof silentLogger;
      saveToxicityPool(l, POOL, T0, log);
      assert.deepEqual(loadToxicityPool(l, log), POOL);
      for (const bad of ['{', '[]', JSON.stringify({ ...POOL, den: -1 }), JSON.stringify({ ...POOL, num: null }), JSON.stringify({ ...POOL, pnum: 5 })]) {
        l.db.prepare('UPDATE toxicity_pool SET state = ?').run(bad);
        assert.equal(loadToxicityPool(l, log), NO_TOXICITY, bad);
      }
      assert.equal(warned.length, 5);
      assert.match(String(parseToxicityPool(JSON.stringify({ ...POOL, w2: Infinity }))), /w2/);
      l.db.prepare('DROP TABLE toxicity_pool').run();
      assert.equal(loadToxicityPool(l, log), NO_TOXICITY, 'an older ledger: none');
      saveToxicityPool(l, POOL, T0, log); // no table (a read of an older file): nothing written, no throw
      l.close();
    });
  });
});
