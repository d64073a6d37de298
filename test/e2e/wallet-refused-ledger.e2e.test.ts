/**
 * A bot refused at start because another bot quotes on its wallet (exit 7) writes nothing to its ledger but
 * that it started and was refused: no fill, no order. Two real `bookmaker run` processes against `bookmaker
 * sim`: A quotes; B, on the same wallet with a new ledger, starts while a taker (the sim's admin wallet)
 * keeps hitting A's orders, so A's fills happen during B's whole start-up. Before, B's fills feed, started
 * before the start-up wallet check, caught such a fill and wrote it into B's new ledger (as another
 * trader's), where no run of B ever owned it.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { TESTNET } from '../../src/exchange/chains.ts';
import { createSigner } from '../../src/exchange/signing/signer.ts';
import { createVenueClient } from '../../src/exchange/venue-client.ts';
import { ledgerBotYaml } from '../support/bot-yaml.ts';
import { cli, waitFor, withTimeout, type Child } from './harness.ts';
import { readLedgerFile } from './ledger-runs.ts';
import { freePort, simForFile, type SimProcess } from './sim-process.ts';

let sim: SimProcess;
let dir: string;
simForFile(24, [], (s, d) => ((sim = s), (dir = d)));

const env = (): NodeJS.ProcessEnv => ({ BOOKMAKER_PRIVATE_KEY: sim.privateKey, BOOKMAKER_API_KEY: sim.key });
const run = (file: string, more: string[] = []): Child => cli(['run', '-c', file, '--summary-seconds', '0', '--log-level', 'info', ...more], env());

/** The sim's admin wallet (another wallet than the bots'), from the keys `bookmaker sim` prints. */
function adminOf(s: SimProcess): { key: string; privateKey: string } {
  const m = /demo-key (sim-demo-\d+-admin) wallet 0x[0-9a-fA-F]{40} perms \S+ private-key (0x[0-9a-fA-F]{64})/.exec(s.child.out());
  assert.ok(m, s.child.out());
  return { key: m[1]!, privateKey: m[2]! };
}

test('a bot refused for a shared wallet (exit 7) writes no fill and no order to its ledger', async (t) => {
  const [portA, portB] = [await freePort(), await freePort()];
  const fileA = join(dir, 'a.yaml');
  const fileB = join(dir, 'b.yaml');
  const ledgerB = join(dir, 'b.sqlite');
  writeFileSync(fileA, ledgerBotYaml(sim.baseUrl, { metricsPort: portA, ledger: join(dir, 'a.sqlite'), adminPort: 0 }));
  writeFileSync(fileB, ledgerBotYaml(sim.baseUrl, { metricsPort: portB, ledger: ledgerB, adminPort: 0 }));
  const admin = adminOf(sim);
  const taker = createSigner({ privateKey: admin.privateKey, chain: TESTNET });
  const client = createVenueClient({ baseUrl: sim.baseUrl, chain: TESTNET, apiKey: admin.key, retry: { maxAttempts: 1 } });
  const a = run(fileA);
  let b: Child | null = null;
  let taking = true;
  let taken = 0;
  try {
    await waitFor('A quotes', async () => (await sim.openOrders()).length >= 2, 60_000).catch((e: Error) =>
      assert.fail(`${e.message}\n${a.out().slice(-3000)}`),
    );
    b = run(fileB, ['--new-ledger']);
    // once B's ledger is open (its feeds start next), the taker buys the complement of each of A's orders at
    // its price, one share each, every 200 ms until B has exited: A's orders fill while B starts
    const bRef = b;
    await waitFor('B opens its ledger', () => bRef.proc.exitCode !== null || /"msg":"ledger open"/.test(bRef.out()), 60_000);
    const takeLoop = (async () => {
      while (taking) {
        for (const o of await sim.openOrders().catch(() => [])) {
          if (!taking) break;
          try {
            const body = taker.signOrder({
              marketId: o.marketId,
              outcomeIndex: o.outcomeIndex === 1 ? 0 : 1,
              side: 0,
              price: 1_000_000 - o.price,
              size: 1_000_000,
            });
            const r = await client.orders.create(body);
            if ((r.order?.filledSize ?? 0) > 0) taken++;
            else if (r.order) await client.orders.cancel(taker.signCancel(r.order.nonce)).catch(() => undefined);
          } catch {
            // a refusal or a race with A's requote: the next round tries again
          }
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    const code = await withTimeout(b.exit, 90_000, `B did not exit:\n${b.out().slice(-3000)}`);
    taking = false;
    await takeLoop;
    assert.equal(code, 7, b.out().slice(-3000));
    const fillsA = readLedgerFile(join(dir, 'a.sqlite'), (l) => (l.db.prepare('SELECT COUNT(*) AS n FROM fills').get() as { n: number }).n);
    const inB = readLedgerFile(ledgerB, (l) => ({
      fills: (l.db.prepare('SELECT COUNT(*) AS n FROM fills').get() as { n: number }).n,
      orders: (l.db.prepare('SELECT COUNT(*) AS n FROM orders').get() as { n: number }).n,
      startups: (l.db.prepare('SELECT COUNT(*) AS n FROM startups').get() as { n: number }).n,
      rows: JSON.stringify(l.db.prepare('SELECT * FROM fills').all()),
    }));
    assert.deepEqual(
      { fills: inB.fills, orders: inB.orders },
      { fills: 0, orders: 0 },
      `B's ledger (A's own has ${fillsA} fills): ${inB.rows}\n${b.out().slice(-4000)}`,
    );
    assert.ok(inB.startups >= 1, "B's ledger says it started");
    t.diagnostic(`fills the taker took of A while B started: ${taken}; A's ledger: ${fillsA} fills`);
  } finally {
    taking = false;
    await client.close();
    if (a.proc.exitCode === null) a.proc.kill('SIGKILL');
    if (b && b.proc.exitCode === null) b.proc.kill('SIGKILL');
  }
});
