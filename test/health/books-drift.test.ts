/** The account-level health state `books-drift`: a balance read that keeps differing from the books. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Account } from '../../src/account/account.ts';
import { createLogger } from '../../src/core/logger.ts';
import { emptyState } from '../../src/state/market-state.ts';
import { HealthModel } from '../../src/health/health-model.ts';
import { ManualClock } from '../exchange/stream/manual-clock.ts';
import type { Bytes32 } from '../../src/model/order.ts';

const M = ('0x' + 'a1'.repeat(32)) as Bytes32;

test('a read that differs is normal for the grace, then books-drift: /readyz names market, outcome and amounts; a fill clears it', () => {
  const clock = new ManualClock(1_800_000_000_000);
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) } });
  const books = new Account();
  const state = emptyState();
  const h = new HealthModel({ markets: [], state: () => state, lastTick: () => null, clock, graceMs: 2_000, logger, drifts: () => books.drifts() });
  h.setProcess('running');
  // the venue says 10 YES; the fill that explains it has not arrived
  books.reconcile(M, 10_000_000, 0, clock.now());
  assert.equal(h.booksDrift(), null, 'within the grace');
  assert.equal(h.readiness().ready, true);
  clock.advance(2_001);
  const d = h.booksDrift();
  assert.equal(d?.state, 'books-drift');
  const r = h.readiness();
  assert.equal(r.ready, false);
  assert.match(r.reasons.join('\n'), new RegExp(`books-drift for 2 s: ${M} yes: books 0 shares, venue 10`));
  assert.ok(lines.some((l) => l.msg === 'books-drift: balance reads differ from the books past the grace'));
  books.applyFill({
    fillId: 'f1',
    marketId: M,
    outcomeIndex: 1,
    side: 0,
    price: 500_000,
    size: 10_000_000,
    fee: 0,
    feeSource: 'venue',
    ts: clock.now() - 3_000,
    origin: 'own',
  });
  assert.equal(h.booksDrift(), null);
  assert.equal(h.readiness().ready, true);
  assert.ok(lines.some((l) => l.msg === 'books-drift cleared: balance reads agree with the books'));
});
