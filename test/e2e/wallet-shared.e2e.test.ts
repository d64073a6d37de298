/**
 * Two writers on one wallet, as an operator meets them: real `bookmaker run` processes against
 * `bookmaker sim`. A quotes; B, on the same wallet with another ledger (`--new-ledger`), refuses to
 * quote (exit 7) naming A's nonce tag, and leaves A's orders alone. Then another writer places an
 * order on the wallet while A runs: A halts (latched, source `wallet`), says why in its log, /readyz
 * and /metrics, and does not touch that order. On the code before the watch, B started and the two
 * cancelled each other's orders at every reconcile; A quoted on.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { TESTNET } from '../../src/exchange/chains.ts';
import type { VenueOrder } from '../../src/model/order.ts';
import { createSigner } from '../../src/exchange/signing/signer.ts';
import { ledgerBotYaml } from '../support/bot-yaml.ts';
import { cli, waitFor, withTimeout, type Child } from './harness.ts';
import { readLedgerFile } from './ledger-runs.ts';
import { freePort, simForFile, type SimProcess } from './sim-process.ts';

let sim: SimProcess;
let dir: string;
simForFile(14, [], (s, d) => ((sim = s), (dir = d)));

const configText = (o: { metricsPort: number; ledger: string }): string => ledgerBotYaml(sim.baseUrl, { ...o, adminPort: 0 });

const env = (): NodeJS.ProcessEnv => ({ BOOKMAKER_PRIVATE_KEY: sim.privateKey, BOOKMAKER_API_KEY: sim.key });
const run = (file: string, more: string[] = []): Child => cli(['run', '-c', file, '--summary-seconds', '0', '--log-level', 'info', ...more], env());

/** B's ledger's nonce tag (its file read-only after B exited), or why it could not be read. */
function tagOf(file: string): string {
  try {
    return readLedgerFile(file, (l) => l.nonceTag()) ?? 'none';
  } catch (e) {
    return `unread: ${(e as Error).message}`;
  }
}

/** What a failure shows: every open order of the wallet (whose tag, where, what, when placed) and the tails of both bots' output. */
function diagnose(open: readonly VenueOrder[], tagA: string, tagB: string, a: Child, b: Child | null): string {
  const rows = open.map((o) => {
    const tag = o.nonce.slice(2, 18);
    const whose = tag === tagA ? 'A' : tag === tagB ? "B's" : 'neither bot';
    return `  ${whose} tag ${tag} nonce ${o.nonce} market ${o.marketId} outcome ${o.outcomeIndex} side ${o.side} price ${o.price} size ${o.size} placed ${o.insertedAt}`;
  });
  return [
    `open orders of the wallet (${open.length}), A's tag ${tagA}, B's ${tagB}:`,
    ...rows,
    '--- A (tail):',
    a.out().slice(-6000),
    '--- B (tail):',
    b?.out().slice(-6000) ?? '-',
  ].join('\n');
}

/** `waitFor`, its time-out showing the tails of both bots' output. */
async function waitOr(what: string, cond: () => boolean | Promise<boolean>, ms: number, a: Child, b: Child | null): Promise<void> {
  try {
    await waitFor(what, cond, ms);
  } catch (e) {
    throw new Error(`${(e as Error).message}\n--- A (tail):\n${a.out().slice(-4000)}\n--- B (tail):\n${b?.out().slice(-4000) ?? '-'}`);
  }
}

test('a second bot on the wallet is refused at start (exit 7); a writer appearing while the first runs halts it', async () => {
  const [portA, portB] = [await freePort(), await freePort()];
  const fileA = join(dir, 'a.yaml');
  const fileB = join(dir, 'b.yaml');
  writeFileSync(fileA, configText({ metricsPort: portA, ledger: join(dir, 'a.sqlite') }));
  const fileLedgerB = join(dir, 'b.sqlite');
  writeFileSync(fileB, configText({ metricsPort: portB, ledger: fileLedgerB }));
  const a = run(fileA);
  let b: Child | null = null;
  try {
    await waitOr('A quotes', async () => (await sim.openOrders()).length >= 2, 60_000, a, null);
    const first = await sim.openOrders();
    const tagA = first[0]!.nonce.slice(2, 18);

    // B: same wallet, its own (new) ledger
    b = run(fileB, ['--new-ledger']);
    const code = await withTimeout(b.exit, 60_000, `B did not exit:\n${b.out().slice(-3000)}`);
    assert.equal(code, 7, b.out().slice(-3000));
    assert.match(
      b.out(),
      new RegExp(`refusing to quote: another trader has open orders on this wallet in this bot's markets: \\d+ orders? with nonce tag ${tagA}`),
    );
    assert.match(b.out(), /stop the other bot on this wallet.*--cancel-foreign-orders/);
    // (A requotes meanwhile: its own cancels are not B's)
    const afterB = await sim.openOrders();
    assert.ok(
      afterB.every((o) => o.nonce.slice(2, 18) === tagA),
      `B placed nothing:\n${diagnose(afterB, tagA, tagOf(fileLedgerB), a, b)}`,
    );
    assert.match(b.out(), /"adopted":0,"cancelled":0,[^\n]*"msg":"reconciled with venue"/, "B's start-up reconcile adopted and cancelled none of A's orders");
    assert.doesNotMatch(b.out(), /"cancelled":[1-9]/);

    // another writer on the wallet while A runs (a person, a script, a bot on another host)
    const signer = createSigner({ privateKey: sim.privateKey, chain: TESTNET });
    const marketId = first[0]!.marketId;
    const theirs = (await sim.client.orders.create(signer.signOrder({ marketId, outcomeIndex: 1, side: 0, price: 10_000, size: 5_000_000 }))).order!;
    await waitOr('A halts', () => /another trader is placing orders on this wallet/.test(a.out()), 30_000, a, b);
    assert.match(
      a.out(),
      new RegExp(
        `"level":50[^\\n]*another trader is placing orders on this wallet \\(1 order with nonce tag ${theirs.nonce.slice(2, 18)}[^\\n]*holds until bookmaker ctl resume`,
      ),
    );
    const r = await fetch(`http://127.0.0.1:${portA}/readyz`);
    assert.equal(r.status, 503);
    const reasons = ((await r.json()) as { reasons: string[] }).reasons;
    assert.ok(
      reasons.some((x) => /^halted by the bot since .*: another trader on this wallet: 1 order with nonce tag/.test(x)),
      JSON.stringify(reasons),
    );
    const metrics = await (await fetch(`http://127.0.0.1:${portA}/metrics`)).text();
    assert.match(metrics, /^bookmaker_wallet_shared 1$/m);
    assert.match(metrics, /^bookmaker_wallet_foreign_orders_total 1$/m);
    await waitOr('A pulled its quotes', async () => (await sim.openOrders()).every((o) => o.nonce === theirs.nonce), 30_000, a, b);

    a.proc.kill('SIGTERM');
    assert.equal(await withTimeout(a.exit, 30_000, 'A did not stop'), 0, a.out().slice(-3000));
    assert.deepEqual(
      (await sim.openOrders()).map((o) => o.nonce),
      [theirs.nonce],
      "A's stop cancelled its own orders, not the other writer's",
    );
  } finally {
    if (a.proc.exitCode === null) a.proc.kill('SIGKILL');
    if (b && b.proc.exitCode === null) b.proc.kill('SIGKILL');
  }
});
