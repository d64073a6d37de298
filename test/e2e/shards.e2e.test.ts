/**
 * Shards, over real HTTP and real processes: one `bookmaker sim` (its own process, with its
 * counterparties), two `bookmaker run` processes on ONE wallet (same private key, same API key) with
 * `--shard 0/2` and `--shard 1/2` and `markets: all`. They quote disjoint sets of markets whose union
 * is every market of the venue (each market's owner is the one rendezvous hashing names), and
 * SIGTERM to one cancels its own orders only: the other's open orders, read from the venue by market
 * before and after, are untouched (still open, or ended by a fill, never cancelled).
 * On the old code a shared wallet meant reconcileScope wallet: the first bot's stop cancelled every
 * order of the wallet, the second's included (and `--shard` did not exist).
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { TESTNET } from '../../src/exchange/chains.ts';
import { createSigner } from '../../src/exchange/signing/signer.ts';
import type { Bytes32, VenueOrder } from '../../src/model/order.ts';
import type { RunReport } from '../../src/runtime/run-report.ts';
import { shardOf } from '../../src/selection/shard.ts';
import { allOrders, cli, waitFor, withTimeout, type Child } from './harness.ts';
import { freePort, simForFile, type SimProcess } from './sim-process.ts';
import { bandsDefaultsYaml, venueYaml } from '../support/bot-yaml.ts';

let sim: SimProcess;
let dir: string;

// seed 5's four demo markets split 2 / 2 between two shards (checked below, not assumed)
simForFile(5, ['--markets', '4'], (s, d) => ((sim = s), (dir = d)));

/** Wide bands and a one-shot order budget: once placed, a bot's orders stay put (no requote), so any change to them is a fill or someone else's cancel. */
const CONFIG = (
  baseUrl: string,
) => `${venueYaml(baseUrl)}${bandsDefaultsYaml([{ minMargin: 0.05, targetMargin: 0.12, maxMargin: 0.19, size: 5 }], 'mid')}  risk:
    maxPosition: 100
    maxNotional: 100
    maxOrderSize: 50
    maxBookAgeSeconds: 600
    maxStreamSilenceSeconds: 600
    orderRate: { capacity: 2, refillPerSecond: 0.0001 }
markets: all
orders:
  priceTolerance: 0.2
  sizeTolerance: 1
  requoteIntervalSeconds: 0.5
  reconcileIntervalSeconds: 5
`;

/** The markets of the bot's health model, from /readyz; null until the bot answers it (the watchdog answers first during start-up). */
async function readyzMarkets(port: number): Promise<string[] | null> {
  try {
    const r = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(3_000) });
    const body = (await r.json()) as { markets?: { marketId: string }[] };
    return Array.isArray(body.markets) && body.markets.length > 0 ? body.markets.map((m) => m.marketId.toLowerCase()).sort() : null;
  } catch {
    return null;
  }
}

test("two instances on one wallet with --shard 0/2 and 1/2: disjoint markets, union = every market; SIGTERM to one leaves the other's orders untouched", {
  timeout: 150_000,
}, async () => {
  const markets: Bytes32[] = [];
  for await (const m of sim.client.markets.iterate({ status: ['active'], limit: 50 })) markets.push(m.id);
  assert.equal(markets.length, 4);
  const owner = new Map(markets.map((id) => [id.toLowerCase(), shardOf(id, 2)]));
  const byShard = [0, 1].map((s) => markets.filter((id) => owner.get(id.toLowerCase()) === s).map((id) => id.toLowerCase()));
  assert.ok(byShard[0]!.length > 0 && byShard[1]!.length > 0, `both shards own markets: ${byShard.map((b) => b.length).join(' / ')}`);

  const file = join(dir, 'shard.yaml');
  writeFileSync(file, CONFIG(sim.baseUrl));
  const ports = [await freePort(), await freePort()];
  const bots: Child[] = [0, 1].map((s) =>
    cli(['run', '-c', file, '--shard', `${s}/2`, '--api-key', sim.key, '--metrics-port', String(ports[s]), '--log-level', 'info', '--summary-seconds', '0'], {
      BOOKMAKER_PRIVATE_KEY: sim.privateKey,
      // one ledger per instance (as one volume per pod)
      BOOKMAKER_LEDGER_PATH: join(dir, `ledger-${s}.sqlite`),
    }),
  );
  try {
    // each bot says which shard it runs and that its scope is its markets
    for (const s of [0, 1]) await waitFor(`bot ${s} logs its shard`, () => bots[s]!.out().includes(`shard ${s}/2: quoting this shard's markets only`), 60_000);
    // what each instance quotes (its health model's markets) is exactly its shard
    for (const s of [0, 1]) {
      let mine: string[] | null = null;
      await waitFor(`bot ${s} lists its markets on /readyz`, async () => (mine = await readyzMarkets(ports[s]!)) !== null, 30_000);
      assert.deepEqual(mine, [...byShard[s]!].sort(), `bot ${s}'s markets`);
    }
    // both quote: every market of the venue has open orders of the wallet
    let open: VenueOrder[] = [];
    await waitFor(
      'every market quoted (two orders each)',
      async () => {
        open = await sim.openOrders();
        return markets.every((id) => open.filter((o) => o.marketId.toLowerCase() === id.toLowerCase()).length >= 2);
      },
      60_000,
    );
    // settle: the one-shot budget leaves the orders in place; read them again after a reconcile period
    await new Promise((r) => setTimeout(r, 6_000));
    const before = (await sim.openOrders()).filter((o) => owner.get(o.marketId.toLowerCase()) === 1);
    assert.ok(before.length >= 2 * byShard[1]!.length, `bot 1's orders before: ${before.length}`);

    // SIGTERM to shard 0: exit 0, none of its markets keeps an order
    bots[0]!.proc.kill('SIGTERM');
    assert.equal(await withTimeout(bots[0]!.exit, 60_000, 'bot 0 exits'), 0, bots[0]!.out().slice(-3000));
    const afterOpen = await sim.openOrders();
    for (const id of byShard[0]!) assert.equal(afterOpen.filter((o) => o.marketId.toLowerCase() === id).length, 0, `shard 0's market ${id} has no order left`);
    // shard 1's orders: each still open, or ended by a fill; none cancelled
    const now = new Map((await allOrders(sim)).map((o) => [o.nonce.toLowerCase(), o]));
    for (const o of before) {
      const seen = now.get(o.nonce.toLowerCase());
      assert.ok(seen, `order ${o.nonce} still known`);
      assert.ok(seen.status === 'open' || seen.filledSize > 0, `bot 1's order ${o.nonce} in ${o.marketId}: ${seen.status}, filled ${seen.filledSize}`);
    }
    assert.ok(afterOpen.filter((o) => owner.get(o.marketId.toLowerCase()) === 1).length >= 1, 'bot 1 still quotes');
    assert.equal(bots[1]!.proc.exitCode, null, 'bot 1 still runs');

    // a reload (SIGHUP) keeps the running shard and its scope: same markets, nothing reported as ignored
    bots[1]!.proc.kill('SIGHUP');
    await waitFor('bot 1 answers the reload', () => /reload \(SIGHUP\): (\{.*\})/.test(bots[1]!.out()), 30_000);
    const reload = JSON.parse(/reload \(SIGHUP\): (\{.*\})/.exec(bots[1]!.out())![1]!) as { added: string[]; removed: string[]; ignored: string[] };
    assert.deepEqual([reload.added, reload.removed, reload.ignored], [[], [], []], JSON.stringify(reload));

    // and the other one stops cleanly too: nothing of the wallet left open
    bots[1]!.proc.kill('SIGTERM');
    assert.equal(await withTimeout(bots[1]!.exit, 60_000, 'bot 1 exits'), 0, bots[1]!.out().slice(-3000));
    assert.equal((await sim.openOrders()).length, 0);
  } finally {
    for (const b of bots) if (b.proc.exitCode === null) b.proc.kill('SIGKILL');
  }
});

test("after resolution on a shared wallet: each instance reports the claimable positions of its own shard only, and the two add up to the wallet's", {
  timeout: 150_000,
}, async () => {
  const markets: Bytes32[] = [];
  for await (const m of sim.client.markets.iterate({ status: ['active'], limit: 50 })) markets.push(m.id);
  const [m0] = markets.filter((id) => shardOf(id, 2) === 0);
  const [m1] = markets.filter((id) => shardOf(id, 2) === 1);
  assert.ok(m0 && m1, 'a market in each shard');
  // the wallet takes YES in one market of each shard (IOC buys from the simulated makers), then both resolve YES
  const signer = createSigner({ privateKey: sim.privateKey, chain: TESTNET });
  for (const id of [m0, m1])
    await sim.client.orders.create(signer.signOrder({ marketId: id, outcomeIndex: 1, side: 0, price: 990_000, size: 3_000_000, timeInForce: 1 }));
  const admin = /demo-key (sim-demo-5-admin) /.exec(sim.child.out())![1]!;
  for (const id of [m0, m1]) {
    const r = await fetch(`${sim.baseUrl}/markets/${id}/resolve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ outcome: 'yes' }),
    });
    assert.equal(r.status, 200, await r.text());
  }
  const wallet = await sim.client.portfolio.claimable(sim.wallet);
  const owed = (id: string): bigint =>
    wallet.positions.filter((p) => p.marketId.toLowerCase() === id.toLowerCase()).reduce((a, p) => a + p.claimableAmount, 0n);
  assert.ok(owed(m0) > 0n && owed(m1) > 0n, `the wallet holds claimable YES in both: ${owed(m0)} / ${owed(m1)}`);

  const file = join(dir, 'shard-claims.yaml');
  // every market by id (a shard may have no active market left): each bot keeps its shard's
  writeFileSync(file, CONFIG(sim.baseUrl).replace('markets: all', `markets:\n${markets.map((id) => `  - id: "${id}"`).join('\n')}`));
  const bots: Child[] = [0, 1].map((s) =>
    // the wallet holds tokens bought before the bots start: new books adopt them as the baseline
    cli(
      [
        'run',
        '-c',
        file,
        '--shard',
        `${s}/2`,
        '--new-ledger',
        '--api-key',
        sim.key,
        '--metrics-port',
        '0',
        '--log-level',
        'info',
        '--summary-seconds',
        '0',
        '--report-json',
        join(dir, `report-${s}.json`),
      ],
      {
        BOOKMAKER_PRIVATE_KEY: sim.privateKey,
        BOOKMAKER_LEDGER_PATH: join(dir, `claims-ledger-${s}.sqlite`),
      },
    ),
  );
  try {
    // the start-up read: each bot reports its own shard's market, with the venue's exact amount
    const usdc = (v: bigint): string => `${v / 1_000_000n}.${(v % 1_000_000n).toString().padStart(6, '0')}`;
    const mine = [m0, m1].map((id) => id.toLowerCase());
    for (const s of [0, 1])
      await waitFor(
        `bot ${s} reports its claimable market`,
        () => bots[s]!.out().includes(`market ${mine[s]} resolved: ${usdc(owed(mine[s]!))} USDC claimable`),
        60_000,
      );
    // past start-up (a stop during start-up ends without a report)
    for (const s of [0, 1]) await waitFor(`bot ${s} is up`, () => bots[s]!.out().includes(`of shard ${s}/2 on`), 60_000);
    for (const s of [0, 1]) {
      bots[s]!.proc.kill('SIGTERM');
      assert.equal(await withTimeout(bots[s]!.exit, 60_000, `bot ${s} exits`), 0, bots[s]!.out().slice(-3000));
    }
    const reports = [0, 1].map((s) => JSON.parse(readFileSync(join(dir, `report-${s}.json`), 'utf8')) as RunReport);
    for (const s of [0, 1]) {
      assert.deepEqual(
        reports[s]!.claims!.markets.map((m) => [m.marketId, m.state, m.claimableUsdc, m.payoutYesUsdc]),
        [[mine[s], 'claimable', usdc(owed(mine[s]!)), '1.000000']],
        `bot ${s}'s report`,
      );
      assert.ok(!bots[s]!.out().includes(`market ${mine[1 - s]} resolved`), `bot ${s} never reports the other shard's market`);
    }
    const sum = reports.reduce((a, r) => a + BigInt(r.claims!.totalClaimableUsdc.replace('.', '')), 0n);
    assert.equal(sum, owed(m0) + owed(m1), 'the fleet adds up to the wallet, nothing counted twice');
  } finally {
    for (const b of bots) if (b.proc.exitCode === null) b.proc.kill('SIGKILL');
  }
});
