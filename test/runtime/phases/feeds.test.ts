import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FeedEvent } from '../../../src/feeds/feed-event.ts';
import type { Bytes32 } from '../../../src/model/order.ts';
import { feedBatchSink, feedSink } from '../../../src/runtime/phases/feeds.ts';
import type { StateEvent } from '../../../src/state/events.ts';

const KNOWN = ('0x' + 'aa'.repeat(32)) as Bytes32;
const GONE = ('0x' + 'bb'.repeat(32)) as Bytes32;
const fe = (event: StateEvent, source = 'test'): FeedEvent => ({ source, event, venueTs: 0, localTs: 0 });

function harness(throwOn?: StateEvent['type']) {
  const received: StateEvent[] = [];
  const retained: Bytes32[] = [];
  const errors: string[] = [];
  const sink = feedSink(
    { known: (id) => id.toLowerCase() === KNOWN, retain: (id) => void retained.push(id) },
    (e) => {
      if (e.type === throwOn) throw new Error('boom');
      received.push(e);
    },
    (err, source) => void errors.push(`${source}: ${err.message}`),
  );
  return { sink, received, retained, errors };
}

test('market data of a market the bot no longer follows is dropped; of a followed one it goes in', () => {
  const h = harness();
  h.sink(fe({ type: 'OracleUpdated', marketId: GONE, probability: 0.5, confidence: 1, ts: 1 } as StateEvent));
  h.sink(fe({ type: 'MarketMetadataUpdated', marketId: GONE, status: 'active', ts: 1 } as StateEvent));
  h.sink(fe({ type: 'PositionSynced', marketId: GONE, yes: 0, no: 0, ts: 1 }));
  assert.equal(h.received.length, 0);
  h.sink(fe({ type: 'OracleUpdated', marketId: KNOWN, probability: 0.5, confidence: 1, ts: 1 } as StateEvent));
  h.sink(fe({ type: 'BalanceUpdated', collateral: 5n, ts: 1 }));
  assert.deepEqual(
    h.received.map((e) => e.type),
    ['OracleUpdated', 'BalanceUpdated'],
  );
  assert.deepEqual(h.retained, []);
});

test('a real fact of a released market (a position still held) goes in and the market is followed again', () => {
  const h = harness();
  h.sink(fe({ type: 'PositionSynced', marketId: GONE, yes: 3, no: 0, ts: 1 }));
  assert.equal(h.received.length, 1);
  assert.deepEqual(h.retained, [GONE], 'retained after the state has it');
  h.sink(fe({ type: 'PositionSynced', marketId: KNOWN, yes: 3, no: 0, ts: 1 }));
  assert.deepEqual(h.retained, [GONE], 'a followed market is not retained again');
});

test('a failure downstream is reported with its source and does not reach the feed', () => {
  const h = harness('BalanceUpdated');
  assert.doesNotThrow(() => h.sink(fe({ type: 'BalanceUpdated', collateral: 5n, ts: 1 }, 'trading')));
  assert.deepEqual(h.errors, ['trading: boom']);
});

function batchHarness() {
  const calls: string[] = [];
  const retained: Bytes32[] = [];
  const errors: string[] = [];
  const lists = { known: (id: string) => id.toLowerCase() === KNOWN, retain: (id: Bytes32) => void retained.push(id) };
  const one = feedSink(
    lists,
    (e) => void calls.push(`one ${e.type}`),
    (err, source) => void errors.push(`${source}: ${err.message}`),
  );
  const sink = feedBatchSink(
    lists,
    one,
    (es) => void calls.push(`batch ${es.map((e) => (e.type === 'PositionSynced' ? `${e.type}:${e.yes}` : e.type)).join(',')}`),
    (err, source) => void errors.push(`${source}: ${err.message}`),
  );
  return { sink, calls, retained, errors };
}

test('a poll read goes in as one batch per run of balance events; fills before it go one by one, first', () => {
  const h = batchHarness();
  const fill = { type: 'OrderFilled', marketId: KNOWN, ts: 1 } as unknown as StateEvent;
  h.sink([
    fe(fill, 'account'),
    fe({ type: 'BalanceUpdated', collateral: 5n, ts: 1 }, 'account'),
    fe({ type: 'PositionSynced', marketId: KNOWN, yes: 1, no: 0, ts: 1 }, 'account'),
    fe({ type: 'PositionSynced', marketId: GONE, yes: 0, no: 0, ts: 1 }, 'account'),
    fe({ type: 'PositionSynced', marketId: GONE, yes: 2, no: 0, ts: 1 }, 'account'),
  ]);
  assert.deepEqual(h.calls, ['one OrderFilled', 'batch BalanceUpdated,PositionSynced:1,PositionSynced:2']);
  assert.deepEqual(h.retained, [GONE], 'a stranger still held is followed again, after the batch is in');
  h.sink([]);
  assert.equal(h.calls.length, 2, 'an empty read applies nothing');
});

test('a batch that fails downstream is reported with its source and does not reach the feed', () => {
  const errors: string[] = [];
  const lists = { known: () => true, retain: () => undefined };
  const sink = feedBatchSink(
    lists,
    () => undefined,
    () => {
      throw new Error('boom');
    },
    (err, source) => void errors.push(`${source}: ${err.message}`),
  );
  assert.doesNotThrow(() => sink([fe({ type: 'BalanceUpdated', collateral: 5n, ts: 1 }, 'account')]));
  assert.deepEqual(errors, ['account: boom']);
});
