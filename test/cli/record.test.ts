/**
 * `bookmaker record` records what the bot would quote (recordSelection: the bot's selectMarkets path),
 * over real HTTP against an in-process local exchange of four markets whose YES books have different
 * spreads. Before, `record` treated a `rank:` entry like `all` (the first 100 active markets): the rank
 * test below then got all four markets and fails.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordSelection } from '../../src/cli/commands/record.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { createVenueClient, type VenueClient } from '../../src/exchange/venue-client.ts';
import type { LocalExchange } from '../../src/sim/local-exchange.ts';
import { startSpreadExchange } from '../support/spread-exchange.ts';
import { shardOf } from '../../src/selection/shard.ts';

let ex: LocalExchange;
let client: VenueClient;
let dir: string;
/** market ids by their YES spread in cents (0 = empty book) */
let bySpread: Map<number, string>;

before(async () => {
  let baseUrl: string;
  ({ ex, baseUrl, bySpread } = await startSpreadExchange('record-test-maker'));
  client = createVenueClient({ baseUrl, apiKey: 'reader' });
  dir = mkdtempSync(join(tmpdir(), 'bookmaker-record-'));
});

after(async () => {
  await client.close();
  await ex.close();
  rmSync(dir, { recursive: true, force: true });
});

async function config(markets: string): Promise<Awaited<ReturnType<typeof loadConfig>>> {
  const file = join(dir, `c${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, `venue: { chain: testnet, baseUrl: "http://127.0.0.1:1/v2" }\ndefaults:\n  risk: { maxNotional: 100 }\nmarkets:\n${markets}\n`);
  return loadConfig(file, { env: {} });
}

const RANK = `  - rank:
      top: 2
      weights: { spread: 1, depth: 0.5, volume: 0, volume24h: 0, volatility: -0.5, tradeRate: 0.5, timeToDeadline: 0, oracleDisagreement: -1, fee: 0 }`;

test('record with a rank entry records the markets the bot would rank in (the two widest spreads), not every active market', async () => {
  const sel = await recordSelection(await config(RANK), client);
  assert.deepEqual(sel.ids.map((x) => x.toLowerCase()).sort(), [bySpread.get(10), bySpread.get(6)].sort());
  assert.equal(sel.reports.length, 1);
  assert.equal(sel.reports[0]!.rows.length, 4, 'every active market was scored');
  assert.equal(sel.shard, null);
});

test('record: an id entry before the rank entry keeps its market, the rank fills the rest; `all` records every active market', async () => {
  const sel = await recordSelection(await config(`  - id: "${bySpread.get(2)}"\n${RANK}`), client);
  assert.deepEqual(sel.ids.map((x) => x.toLowerCase()).sort(), [bySpread.get(2), bySpread.get(10), bySpread.get(6)].sort());
  const all = await recordSelection(await config('  - all: true'), client);
  assert.deepEqual(all.ids.map((x) => x.toLowerCase()).sort(), [...bySpread.values()].sort());
  assert.equal(all.reports.length, 0);
});

test("record with BOOKMAKER_SHARD records only the shard's markets, as the bot of that shard quotes them", async () => {
  const cfg = await config('  - all: true');
  const s0 = await recordSelection(cfg, client, { env: { BOOKMAKER_SHARD: '0/2' } });
  const s1 = await recordSelection(cfg, client, { env: { BOOKMAKER_SHARD: '1/2' } });
  for (const id of s0.ids) assert.equal(shardOf(id, 2), 0);
  for (const id of s1.ids) assert.equal(shardOf(id, 2), 1);
  assert.deepEqual([...s0.ids, ...s1.ids].map((x) => x.toLowerCase()).sort(), [...bySpread.values()].sort());
  assert.deepEqual(s1.shard, { index: 1, count: 2 });
});
