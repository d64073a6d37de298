/**
 * What `markets list` prints can be pasted into `book`: against a real local exchange, every market's
 * first column (its slug, or with --ids its full id) opens that market's book, showing the order that
 * rests there. The old table shortened ids to `0x94f04e…aee4`, which `book` refused.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parseArgs } from '../../src/cli/args.ts';
import marketsCommand, { runMarkets } from '../../src/cli/commands/markets.ts';
import bookCommand, { runBook } from '../../src/cli/commands/book.ts';
import { parseConfigText } from '../../src/config/load-config.ts';
import { harness, call, type Harness } from '../sim/helpers.ts';

let h: Harness;
/** a distinct resting YES bid per market (cents), so each book proves it is that market's */
const bidCents = new Map<string, number>();

before(async () => {
  h = await harness({ markets: 3 });
  let cents = 31;
  for (const m of h.ex.state.stores.markets.values()) {
    const order = h.alice.signOrder({ marketId: m.id, outcomeIndex: 1, side: 0, price: cents * 10_000, size: 2_000_000 });
    const r = await call(h.base, 'POST', '/orders', order, 'alice-key');
    assert.equal(r.status, 201, JSON.stringify(r.body));
    bidCents.set(m.id, cents);
    cents += 2;
  }
});
after(() => h?.close());

async function markets(argv: string[]): Promise<string[][]> {
  let out = '';
  const code = await runMarkets(parseArgs(['list', ...argv, '--base-url', h.base], marketsCommand.options), {
    out: { write: (s: string) => (out += s) },
    env: {},
  });
  assert.equal(code, 0);
  const [head, ...rows] = out.trimEnd().split('\n');
  assert.match(head!, /^MARKET\s+STATUS/);
  return rows.map((r) => r.split(/\s{2,}/));
}

async function book(key: string): Promise<string> {
  let out = '';
  const err = { write: (s: string) => ((out += s), true) };
  const code = await runBook(parseArgs([key, '--base-url', h.base, '--depth', '5'], bookCommand.options), {
    out: { write: (s: string) => (out += s) },
    err,
    tty: false,
  });
  assert.equal(code, 0, out);
  return out;
}

test('every first column of `markets list` opens that market in `book` (slugs by default, full ids with --ids)', async () => {
  const bySlug = await markets([]);
  const byId = await markets(['--ids']);
  assert.equal(bySlug.length, 3);
  assert.equal(byId.length, 3);
  for (let i = 0; i < bySlug.length; i++) {
    const slug = bySlug[i]![0]!;
    const id = byId[i]![0]!;
    assert.match(id, /^0x[0-9a-f]{64}$/, 'the full id, not shortened');
    const m = h.ex.state.stores.markets.get(id) ?? [...h.ex.state.stores.markets.values()].find((x) => x.id.toLowerCase() === id.toLowerCase());
    assert.ok(m, `${id} is a market of the exchange`);
    assert.equal(slug, m.slug, 'the slug column is the market slug');
    const cents = bidCents.get(m.id)!;
    for (const key of [slug, id]) {
      const out = await book(key);
      assert.match(out.split('\n')[0]!, new RegExp(`^market ${key}  outcome YES`));
      assert.match(out, new RegExp(`\\b2\\s+${cents}\\.00\\b`), `${key}: the book shows the bid resting in that market at ${cents}¢\n${out}`);
    }
  }
});

test('the same first column is accepted in a config markets list (slug: or id:)', async () => {
  const [row] = await markets([]);
  const [idRow] = await markets(['--ids']);
  const c = await parseConfigText(`venue: mainnet\nmarkets:\n  - slug: ${row![0]}\n  - id: "${idRow![0]}"\n`, 'x.yaml', { env: {} });
  assert.equal(c.markets.length, 2);
});
