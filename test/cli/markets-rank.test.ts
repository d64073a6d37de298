/**
 * `bookmaker markets rank -c FILE` over real HTTP against an in-process local exchange: four markets
 * whose YES books have different spreads; the table and the JSON tell the score, the terms and which
 * were selected or why not, and nothing is traded.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from '../../src/cli/args.ts';
import command, { runMarkets } from '../../src/cli/commands/markets.ts';
import { BadInputError } from '../../src/model/errors.ts';
import type { LocalExchange } from '../../src/sim/local-exchange.ts';
import { startSpreadExchange } from '../support/spread-exchange.ts';
import { shardOf } from '../../src/selection/shard.ts';
import { bytes32Of } from '../../src/model/ids.ts';

let ex: LocalExchange;
let baseUrl: string;
let dir: string;
/** market ids by their YES spread in cents */
let bySpread: Map<number, string>;

before(async () => {
  ({ ex, baseUrl, bySpread } = await startSpreadExchange('markets-rank-test-maker'));
  dir = mkdtempSync(join(tmpdir(), 'bookmaker-rank-'));
});

after(async () => {
  await ex.close();
  rmSync(dir, { recursive: true, force: true });
});

function config(rank: string): string {
  const file = join(dir, `c${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(
    file,
    `venue: { chain: testnet, baseUrl: "http://127.0.0.1:1/v2" }
defaults:
  risk: { maxNotional: 100 }
markets:
  - rank:
${rank}
`,
  );
  return file;
}

async function run(argv: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const code = await runMarkets(parseArgs([...argv, '--base-url', baseUrl], command.options), { out: { write: (s: string) => (out += s) }, env: {} });
  return { code, out };
}

const RANK = `      top: 2
      weights: { spread: 1, depth: 0.5, volume: 0, volume24h: 0, volatility: -0.5, tradeRate: 0.5, timeToDeadline: 0, oracleDisagreement: -1, fee: 0 }`;

test('markets rank --json: every active market scored; the widest spreads selected; the rest ranked out; nothing traded', async () => {
  const ordersBefore = ex.state.stores.orders.length + ex.state.stores.activity.length;
  const { code, out } = await run(['rank', '-c', config(RANK), '--json']);
  assert.equal(code, 0);
  const j = JSON.parse(out);
  assert.equal(j.entries.length, 1);
  const e = j.entries[0];
  const rows = new Map<
    string,
    { verdict: string; score: number; terms: Record<string, number | null>; drops: { term: string; reason: string }[]; selected: boolean }
  >(e.markets.map((m: { marketId: string }) => [m.marketId.toLowerCase(), m]));
  assert.equal(rows.size, 4);
  const wide = rows.get(bySpread.get(10)!)!;
  const mid = rows.get(bySpread.get(6)!)!;
  const narrow = rows.get(bySpread.get(2)!)!;
  const empty = rows.get(bySpread.get(0)!)!;
  assert.equal(wide.terms.spread, 1);
  assert.ok(Math.abs(mid.terms.spread! - 0.6) < 1e-9);
  assert.ok(Math.abs(narrow.terms.spread! - 0.2) < 1e-9);
  // 50 shares at 40¢ and at 40¢ + spread, within 5¢ of the touch: 20 + 50·(0.4 + s) USDC
  assert.ok(Math.abs(wide.terms.depth! - 45 / 545) < 1e-9, JSON.stringify(wide));
  assert.equal(empty.terms.spread, null);
  assert.deepEqual(empty.drops.map((d) => `${d.term}:${d.reason}`).includes('spread:missing'), true);
  // the local exchange has no completed oracle quote: a counted drop, not a failure
  assert.ok(wide.drops.some((d) => d.term === 'oracleDisagreement' && d.reason === 'missing'));
  assert.deepEqual([wide.verdict, mid.verdict, narrow.verdict, empty.verdict], ['selected', 'selected', 'ranked-out', 'ranked-out']);
  assert.deepEqual(j.selected.map((x: string) => x.toLowerCase()).sort(), [bySpread.get(10), bySpread.get(6)].sort());
  assert.ok(wide.score > mid.score && mid.score > narrow.score);
  // 1 list page + 4 markets × 4 reads (book, prices, trades, oracle)
  assert.equal(e.requests, 17);
  assert.equal(e.perMarketUsdc, 100);
  assert.equal(ex.state.stores.orders.length + ex.state.stores.activity.length, ordersBefore, 'ranking trades nothing');
});

test('markets rank: the table names each market, its score, each enabled term and why it is or is not selected', async () => {
  const { code, out } = await run(['rank', '-c', config(`${RANK}\n      capital: { perMarket: 60, total: 100 }`)]);
  assert.equal(code, 0);
  const lines = out.trimEnd().split('\n');
  assert.match(lines[0]!, /^markets entry 0: 1 selected of 4 candidates; capital 60\.00 USDC a market, 100\.00 USDC in all; 17 requests$/);
  assert.match(lines[2]!, /^MARKET\s+NAME\s+SCORE\s+SPREAD\s+DEPTH\s+VOLAT\s+TRADES\s+ORACLE\s+SELECTED$/);
  const row = (id: string) => lines.find((l) => l.toLowerCase().startsWith(id))!;
  assert.match(row(bySpread.get(10)!), /\s1\.00\s.*\sselected$/);
  assert.match(row(bySpread.get(6)!), /\s0\.60\s.*\scapital$/);
  assert.match(row(bySpread.get(0)!), /\s-\s.*\sranked-out$|\s-\s.*\scapital$/);
  assert.match(lines.at(-1)!, /^1 market\(s\) selected by the whole markets: list$/);
});

test('markets rank needs -c; flags are checked before any request', async () => {
  await assert.rejects(run(['rank']), (e: unknown) => e instanceof BadInputError && /--config/.test((e as Error).message));
  await assert.rejects(run(['rank', 'extra', '-c', 'x.yaml']), BadInputError);
});

test('markets rank --shard I/N and BOOKMAKER_SHARD: each shard ranks only its own markets, as run --shard does; the two shards partition the markets', async () => {
  const rankOf = async (argv: string[], env: NodeJS.ProcessEnv = {}): Promise<{ candidates: string[]; selected: string[]; shard: unknown }> => {
    let out = '';
    const code = await runMarkets(
      parseArgs(['rank', '-c', config(RANK.replace('top: 2', 'top: 4')), '--json', ...argv, '--base-url', baseUrl], command.options),
      { out: { write: (s: string) => (out += s) }, env },
    );
    assert.equal(code, 0);
    const j = JSON.parse(out);
    return {
      candidates: j.entries[0].markets.map((m: { marketId: string }) => m.marketId.toLowerCase()).sort(),
      selected: j.selected.map((x: string) => x.toLowerCase()).sort(),
      shard: j.shard,
    };
  };
  const all = [...bySpread.values()].sort();
  const s0 = await rankOf(['--shard', '0/2']);
  const s1 = await rankOf(['--shard', '1/2']);
  for (const [i, s] of [s0, s1].entries()) {
    assert.deepEqual(s.shard, { index: i, count: 2 });
    for (const id of s.candidates) assert.equal(shardOf(bytes32Of(id)!, 2), i, `${id} is ranked by shard ${i} only`);
    assert.deepEqual(s.selected, s.candidates, 'top 4: every candidate of the shard that has a book is kept');
  }
  assert.deepEqual([...s0.candidates, ...s1.candidates].sort(), all, 'disjoint, and together every market');
  assert.ok(s0.candidates.length > 0 && s1.candidates.length > 0, 'the seed splits the four markets');
  // the environment variable, and the flag winning over it
  assert.deepEqual((await rankOf([], { BOOKMAKER_SHARD: '1/2' })).candidates, s1.candidates);
  assert.deepEqual((await rankOf(['--shard', '0/2'], { BOOKMAKER_SHARD: '1/2' })).candidates, s0.candidates);
  assert.deepEqual((await rankOf([])).candidates, all, 'no shard: every market');
  // the table says which shard
  let text = '';
  await runMarkets(parseArgs(['rank', '-c', config(RANK), '--shard', '1/2', '--base-url', baseUrl], command.options), {
    out: { write: (s: string) => (text += s) },
    env: {},
  });
  assert.match(text.trimEnd().split('\n').at(-1)!, /^\d market\(s\) selected by the whole markets: list in shard 1\/2$/);
  // bad values, before any request
  await assert.rejects(run(['rank', '-c', 'x.yaml', '--shard', '2/2']), (e: unknown) => e instanceof Error && /--shard/.test(e.message));
  await assert.rejects(run(['list', '--shard', '0/2']), (e: unknown) => e instanceof BadInputError && /only with markets rank/.test(e.message));
  await assert.rejects(
    runMarkets(parseArgs(['rank', '-c', config(RANK), '--base-url', baseUrl], command.options), { out: { write: () => true }, env: { BOOKMAKER_SHARD: 'x' } }),
    (e: unknown) => e instanceof Error && /BOOKMAKER_SHARD/.test(e.message),
  );
});
