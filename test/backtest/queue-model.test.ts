/** Queue-position models: tables of (join, events) → shares reaching our order and the queue in front. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { queueModel, type QueueModelName } from '../../src/backtest/queue-model.ts';
import { BadInputError } from '../../src/model/errors.ts';

type Step = { trade: number } | { level: [number, number] };
interface Row {
  model: QueueModelName;
  join: number;
  steps: Step[];
  /** shares that reached us per trade step, in order */
  reach: number[];
  ahead: number;
}

const table: Row[] = [
  // joining behind 100, a trade of 30 advances us, a trade of 90 fills 20
  { model: 'level', join: 100, steps: [{ trade: 30 }, { trade: 90 }], reach: [0, 20], ahead: 0 },
  { model: 'risk-averse', join: 100, steps: [{ trade: 30 }, { trade: 90 }], reach: [0, 20], ahead: 0 },
  // 50 join behind us, then a cancel of 40 (150 → 110): the level rule moves us up by 40, risk-averse does not
  { model: 'level', join: 100, steps: [{ level: [100, 150] }, { level: [150, 110] }, { trade: 70 }], reach: [10], ahead: 0 },
  { model: 'risk-averse', join: 100, steps: [{ level: [100, 150] }, { level: [150, 110] }, { trade: 70 }], reach: [0], ahead: 30 },
  // risk-averse still caps the queue in front at the level size
  { model: 'risk-averse', join: 100, steps: [{ level: [100, 20] }, { trade: 25 }], reach: [5], ahead: 0 },
  // a decrease explained by a trade already counted does not advance us twice
  { model: 'level', join: 100, steps: [{ trade: 30 }, { level: [100, 70] }, { trade: 60 }], reach: [0, 0], ahead: 10 },
  // size increases join behind us
  { model: 'level', join: 50, steps: [{ level: [50, 500] }, { trade: 60 }], reach: [10], ahead: 0 },
  // probabilistic, n = 2: ahead 100, behind 100 → half of a 40-share cancel is in front
  { model: 'probabilistic', join: 100, steps: [{ level: [200, 160] }, { trade: 80 }], reach: [0], ahead: 0 },
  { model: 'probabilistic', join: 100, steps: [{ level: [200, 160] }, { trade: 90 }], reach: [10], ahead: 0 },
  // probabilistic at the back of the queue (nothing behind): the whole cancel was in front
  { model: 'probabilistic', join: 100, steps: [{ level: [100, 60] }, { trade: 60 }], reach: [0], ahead: 0 },
  // fast mode: no queue, every trade at our price reaches us
  { model: 'none', join: 1000, steps: [{ trade: 5 }], reach: [5], ahead: 0 },
];

for (const [i, row] of table.entries()) {
  test(`queue table #${i + 1}: ${row.model}, join ${row.join}, ${JSON.stringify(row.steps)}`, () => {
    const m = queueModel(row.model);
    const q = m.join(row.join);
    const reach: number[] = [];
    for (const s of row.steps) {
      if ('trade' in s) reach.push(m.onTrade(q, s.trade));
      else m.onLevel(q, s.level[0], s.level[1]);
    }
    assert.deepEqual(reach, row.reach);
    assert.equal(q.ahead, row.ahead);
  });
}

test('unknown queue model names are typed errors naming the field', () => {
  assert.throws(
    () => queueModel('optimistic' as QueueModelName),
    (e: unknown) => e instanceof BadInputError && e.field === 'queueModel',
  );
  assert.throws(
    () => queueModel('level', -1),
    (e: unknown) => e instanceof BadInputError && e.field === 'queuePower',
  );
});

test('probabilistic: the queue position stays in whole units, so fills are whole (a bigint ledger books them)', async () => {
  const fc = (await import('fast-check')).default;
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 1e9 }),
      fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 2e9 })), { maxLength: 30 }),
      fc.double({ min: 0.1, max: 10, noNaN: true }),
      (join, steps, power) => {
        const m = queueModel('probabilistic', power);
        const q = m.join(join);
        let level = join;
        for (const [trade, x] of steps) {
          if (trade) assert.ok(Number.isInteger(m.onTrade(q, x)));
          else {
            m.onLevel(q, level, x);
            level = x;
          }
          assert.ok(Number.isInteger(q.ahead) && q.ahead >= 0, `ahead ${q.ahead}`);
        }
      },
    ),
    { numRuns: 2_000 },
  );
  // the case that threw in the tape (BigInt of a fraction): 3 ahead of 7 behind, 1 cancelled
  const m = queueModel('probabilistic', 2);
  const q = m.join(3);
  m.onLevel(q, 3, 10);
  m.onLevel(q, 10, 9);
  assert.equal(q.ahead, 3, 'floor(1 × 9/58) = 0: we keep our place rather than advance by a fraction');
});
