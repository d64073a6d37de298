/**
 * The heap policy of a large run: from LARGE_RUN_MARKETS quoted markets the old generation's growing
 * factor is capped, unless the operator gave heap flags or chose a factor; a bad setting is named and
 * ignored. What the factor does to the bot's memory is the load benchmark's (test/bench/BENCHMARKS.md).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { heapPolicyFor, LARGE_RUN_HEAP_GROWING_PERCENT, LARGE_RUN_MARKETS } from '../../src/runtime/heap-policy.ts';

test('a large run caps the growing factor; a small one, heap flags given, or the variable decide otherwise', () => {
  assert.equal(heapPolicyFor(LARGE_RUN_MARKETS - 1, {}, []).growingPercent, null);
  assert.equal(heapPolicyFor(LARGE_RUN_MARKETS, {}, []).growingPercent, LARGE_RUN_HEAP_GROWING_PERCENT);
  assert.equal(heapPolicyFor(2_000, {}, ['--max-old-space-size=320']).growingPercent, null, 'the operator’s cap is kept');
  assert.equal(heapPolicyFor(2_000, { NODE_OPTIONS: '--max-semi-space-size=32 --max-old-space-size=320' }, []).growingPercent, null);
  assert.equal(heapPolicyFor(2_000, { BOOKMAKER_HEAP_APPLIED: '320' }, []).growingPercent, null, 'bin/bookmaker.js applied BOOKMAKER_HEAP_LIMITS');
  assert.equal(
    heapPolicyFor(2_000, { NODE_OPTIONS: '--max-semi-space-size=32' }, []).growingPercent,
    LARGE_RUN_HEAP_GROWING_PERCENT,
    'a semi-space alone is no cap',
  );
  assert.equal(heapPolicyFor(10, { BOOKMAKER_HEAP_GROWING_PERCENT: '20' }, []).growingPercent, 20, 'the variable wins, at any size');
  assert.equal(heapPolicyFor(2_000, { BOOKMAKER_HEAP_GROWING_PERCENT: '0' }, []).growingPercent, null, '0: V8’s own');
  for (const bad of ['-5', 'lots', '1.5', '5000']) {
    const p = heapPolicyFor(2_000, { BOOKMAKER_HEAP_GROWING_PERCENT: bad }, []);
    assert.equal(p.growingPercent, null);
    assert.equal(p.invalid, true);
    assert.match(p.why, /ignored: expected a whole number/);
  }
});
