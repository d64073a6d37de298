import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { runMarkets, formatTable } from '../../src/cli/commands/markets.ts';
import command from '../../src/cli/commands/markets.ts';
import { parseArgs } from '../../src/cli/args.ts';
import { BadInputError } from '../../src/model/errors.ts';
import { VenueError } from '../../src/exchange/client/errors.ts';
import { MARKET_ID, marketJson, startFixture, type Fixture } from '../exchange/client/fixture-server.ts';

let fx: Fixture;
before(async () => {
  fx = await startFixture();
});
after(async () => {
  await fx.close();
});
beforeEach(() => {
  fx.requests.length = 0;
});

async function run(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string }> {
  let out = '';
  const code = await runMarkets(parseArgs([...argv, '--base-url', fx.baseUrl], command.options), { out: { write: (s: string) => (out += s) }, env });
  return { code, out };
}

test('list: compact table with YES bid/ask in cents and volume in USDC', async () => {
  fx.on('GET /markets', { body: { markets: [marketJson()], cursor: null } });
  const { code, out } = await run(['list', '--status', 'active', '--limit', '5', '--sort-by', 'volume']);
  assert.equal(code, 0);
  const lines = out.trimEnd().split('\n');
  assert.match(lines[0]!, /^MARKET\s+STATUS\s+YES BID\s+YES ASK\s+VOLUME\s+QUESTION$/);
  assert.match(lines[1]!, /^rain-lisbon\s+active\s+45¢\s+47¢\s+\$123\.45\s+Rain in Lisbon\?/);
  const q = fx.requests[0]!.query;
  assert.equal(q.get('status'), 'active');
  assert.equal(q.get('limit'), '5');
  assert.equal(q.get('sortBy'), 'volume');
  assert.equal(fx.requests[0]!.headers.authorization, undefined);
});

test('list --all --json follows cursors and prints integer units with bigints as strings', async () => {
  fx.on('GET /markets', (r) =>
    r.query.get('cursor') ? { body: { markets: [marketJson()], cursor: null } } : { body: { markets: [marketJson()], cursor: 'c' } },
  );
  const { out } = await run(['list', '--all', '--json']);
  const arr = JSON.parse(out);
  assert.equal(arr.length, 2);
  assert.equal(arr[0].volume, '123456789');
  assert.equal(arr[0].outcomePrices[1].bestBid, 450000);
});

test('search and get (detail view); the API key comes from BOOKMAKER_API_KEY or --api-key', async () => {
  fx.on('GET /markets/search', { body: { markets: [marketJson()], hasMore: false } });
  const s = await run(['search', 'rain', 'lisbon'], { BOOKMAKER_API_KEY: 'ctx_pk_from_env_1234' });
  assert.match(s.out, /Rain in Lisbon\?/);
  assert.equal(fx.requests[0]!.query.get('q'), 'rain lisbon');
  assert.equal(fx.requests[0]!.headers.authorization, 'Bearer ctx_pk_from_env_1234');
  fx.on(`GET /markets/${MARKET_ID}`, { body: { market: marketJson() } });
  const g = await run(['get', MARKET_ID, '--api-key', 'ctx_pk_flag_5678']);
  assert.match(g.out, /Will it rain in Lisbon tomorrow\?/);
  assert.match(g.out, /YES\s+bid 45¢\s+ask 47¢/);
  assert.match(g.out, /slug\s+rain-lisbon/);
  assert.equal(fx.requests.at(-1)!.headers.authorization, 'Bearer ctx_pk_flag_5678');
});

test('bad input is rejected before any request, naming the flag', async () => {
  await assert.rejects(run(['list', '--limit', '51']), (e: unknown) => e instanceof BadInputError && e.field === '--limit');
  await assert.rejects(run(['list', '--status', 'open']), (e: unknown) => e instanceof BadInputError && e.field === '--status');
  await assert.rejects(run(['frobnicate']), (e: unknown) => e instanceof BadInputError && e.field === 'subcommand');
  await assert.rejects(run(['search']), BadInputError);
  await assert.rejects(run(['get']), BadInputError);
  await assert.rejects(run(['get', '0x12']), BadInputError);
  assert.equal(fx.requests.length, 0);
});

test('venue errors surface as VenueError (the dispatcher prints them and exits 1)', async () => {
  fx.on(`GET /markets/${MARKET_ID}`, { status: 404, body: { message: 'Market not found', code: 'not_found' } });
  await assert.rejects(run(['get', MARKET_ID]), (e: unknown) => e instanceof VenueError && e.status === 404);
});

test('formatTable: empty list and missing prices', () => {
  assert.equal(formatTable([]), 'no markets\n');
  const bare = { id: MARKET_ID, status: 'active', outcomePrices: [], volume: 0n, shortQuestion: 'Q', question: 'Q' } as unknown as Parameters<
    typeof formatTable
  >[0][number];
  const t = formatTable([bare]);
  assert.match(t, /-\s+-\s+\$0/);
  // no slug: the full id, never shortened
  assert.match(t.split('\n')[1]!, new RegExp(`^${MARKET_ID}\\s+active`));
});
