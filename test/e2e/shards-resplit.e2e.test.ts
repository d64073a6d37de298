/**
 * Shards re-split with a different N, as an operator meets it: real `bookmaker run --shard I/N` processes
 * on one wallet against one `bookmaker sim`, each with its own ledger. Seed 17's six markets split
 * 0/2: m0 m4, 1/2: m1 m2 m3 m5; with N = 3 shard 2/3 takes m0 (from shard 0) and m3, m5 (from shard 1).
 *
 * Shard 1/2 crashes (SIGKILL: its orders stay), shard 0/2 still runs with the old N, and shard 2/3 starts.
 * 2/3 knows both siblings' orders by their tags: it cancels them in its markets at start (never adopts
 * them), quotes m3 and m5 once shard 1's orders are gone, and leaves m0 to shard 0, which still quotes it;
 * shard 0/2 sees 2/3's orders in m0 and does not halt. Once 0/2 stops, 2/3 quotes m0.
 * On the code before, 2/3 refused to start (exit 7, "another trader has open orders on this wallet"),
 * and by the wallet watch's rule a running shard that sees a new tag's orders in its market halts.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Bytes32, VenueOrder } from '../../src/model/order.ts';
import { shardTag } from '../../src/runtime/shard-tags.ts';
import { shardOf } from '../../src/selection/shard.ts';
import { ledgerBotYaml } from '../support/bot-yaml.ts';
import { cli, waitFor, withTimeout, type Child } from './harness.ts';
import { freePort, simForFile, type SimProcess } from './sim-process.ts';

let sim: SimProcess;
let dir: string;
simForFile(17, ['--markets', '6'], (s, d) => ((sim = s), (dir = d)));

const tagOf = (o: VenueOrder): string => o.nonce.slice(2, 18).toLowerCase();

async function metric(port: number, name: string): Promise<number | null> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : null;
}

test("N 2 → 3 with a crashed shard and an old-count shard still running: the new shard cancels its siblings' orders, quotes what is free, and no shard halts", {
  timeout: 240_000,
}, async () => {
  const markets: Bytes32[] = [];
  for await (const m of sim.client.markets.iterate({ status: ['active'], limit: 50 })) markets.push(m.id.toLowerCase() as Bytes32);
  assert.equal(markets.length, 6);
  const n2 = markets.map((id) => shardOf(id, 2));
  const n3 = markets.map((id) => shardOf(id, 3));
  const toNew = markets.filter((_, i) => n3[i] === 2);
  const from0 = toNew.filter((id) => shardOf(id, 2) === 0);
  const from1 = toNew.filter((id) => shardOf(id, 2) === 1);
  assert.ok(from0.length > 0 && from1.length > 0, `seed 17 moves markets from both shards: ${n2.join('')} → ${n3.join('')}`);
  const tag = [0, 1, 2].map((j) => shardTag(sim.wallet, j));

  const env = { BOOKMAKER_PRIVATE_KEY: sim.privateKey, BOOKMAKER_API_KEY: sim.key };
  const ports: number[] = [];
  const start = async (name: string, shard: string, more: string[] = []): Promise<Child> => {
    const port = await freePort();
    ports.push(port);
    const file = join(dir, `${name}.yaml`);
    writeFileSync(file, ledgerBotYaml(sim.baseUrl, { metricsPort: port, adminPort: 0, ledger: join(dir, `${name}.sqlite`) }));
    return cli(['run', '-c', file, '--shard', shard, '--summary-seconds', '0', '--log-level', 'info', ...more], env);
  };
  const byMarket = async (): Promise<Map<string, Set<string>>> => {
    const out = new Map<string, Set<string>>(markets.map((m) => [m, new Set<string>()]));
    for (const o of await sim.openOrders()) out.get(o.marketId.toLowerCase())?.add(tagOf(o));
    return out;
  };
  const a = await start('a', '0/2');
  const b = await start('b', '1/2');
  let c: Child | null = null;
  try {
    await waitFor('the two shards quote every market', async () => [...(await byMarket()).values()].every((t) => t.size === 1), 90_000);
    const before = await byMarket();
    for (const [i, m] of markets.entries()) assert.deepEqual([...before.get(m)!], [tag[n2[i]!]], `market ${i} carries its shard's tag`);

    // shard 1/2 crashes: its orders stay at the venue
    b.proc.kill('SIGKILL');
    await withTimeout(b.exit, 20_000, 'b did not die');
    // the new count's shard 2 starts while 0/2 still runs
    // a new shard's new ledger on markets with history: --new-ledger adopts their holdings as its baseline
    c = await start('c', '2/3', ['--new-ledger']);
    await waitFor(
      '2/3 quotes the markets shard 1 left',
      async () => {
        const now = await byMarket();
        return from1.every((m) => now.get(m)!.has(tag[2]!) && !now.get(m)!.has(tag[1]!));
      },
      60_000,
    );
    assert.equal(c.proc.exitCode, null, `2/3 runs:\n${c.out().slice(-3000)}`);
    // (what shard 0 had in its moved market at that instant varies: it requotes)
    await waitFor(
      "2/3 says it cancelled its siblings' orders",
      () =>
        /orders of sibling shards? [0-9, ]+ in markets this shard owns now \(the shard count changed\)[^\n]*cancelled \d+ before the first quote/.test(
          c!.out(),
        ),
      30_000,
    );
    // shard 0 requotes the market whose orders 2/3 cancelled at its start: 2/3 leaves it to shard 0
    await waitFor(
      '2/3 sees shard 0 still quoting',
      () => new RegExp(`sibling shard 0 still quotes market ${from0[0]}, which this shard owns now`).test(c!.out()),
      30_000,
    );
    // settle: a few reconciles later m0 is shard 0's alone, the others 2/3's (polled: a listing may catch shard 0
    // between its quotes after a fill, with no order in m0 for a moment)
    let now = await byMarket();
    const settled = async (): Promise<boolean> => {
      now = await byMarket();
      return from0.every((m) => [...now.get(m)!].join() === tag[0]) && from1.every((m) => [...now.get(m)!].join() === tag[2]);
    };
    await new Promise((r) => setTimeout(r, 4_000));
    await waitFor("m0 is shard 0's alone and the others 2/3's", settled, 20_000).catch(() => undefined);
    for (const m of from0) assert.deepEqual([...now.get(m)!], [tag[0]], `market ${m} moved from shard 0 stays shard 0's while it runs (not double-quoted)`);
    for (const m of from1) assert.deepEqual([...now.get(m)!], [tag[2]], `market ${m} is 2/3's`);
    assert.equal(await metric(ports[2]!, 'bookmaker_shard_contested_markets'), from0.length);
    // no shard halted: neither calls the other another trader
    for (const x of [a, c]) assert.doesNotMatch(x.out(), /another trader (is placing|has open) orders/);
    assert.equal(await metric(ports[0]!, 'bookmaker_wallet_shared'), 0);
    assert.equal(await metric(ports[2]!, 'bookmaker_wallet_shared'), 0);

    // the old count's last shard stops (cancelling its orders): 2/3 quotes m0
    a.proc.kill('SIGTERM');
    assert.equal(await withTimeout(a.exit, 30_000, 'a did not stop'), 0, a.out().slice(-3000));
    await waitFor(
      '2/3 quotes the market shard 0 gave up',
      async () => {
        const t = await byMarket();
        return from0.every((m) => t.get(m)!.has(tag[2]!));
      },
      30_000,
    );
    assert.equal(await metric(ports[2]!, 'bookmaker_shard_contested_markets'), 0);
    c.proc.kill('SIGTERM');
    assert.equal(await withTimeout(c.exit, 30_000, 'c did not stop'), 0, c.out().slice(-3000));
  } catch (e) {
    // what each bot said, for the failure
    const tail = (x: Child | null, name: string): string => `--- ${name}:\n${x?.out().slice(-4000) ?? '(not started)'}`;
    throw new Error(`${(e as Error).message}\n${tail(a, '0/2')}\n${tail(c, '2/3')}`, { cause: e });
  } finally {
    for (const x of [a, b, c]) if (x && x.proc.exitCode === null) x.proc.kill('SIGKILL');
  }
});
