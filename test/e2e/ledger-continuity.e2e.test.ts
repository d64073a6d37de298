/**
 * Books that outlive the process, end to end against `bookmaker sim` (a child process with
 * its simulated counterparties) and `bookmaker run` (another child):
 *   run 1 quotes and gets fills → `kill -9` during traffic (its quotes stay at the venue and keep
 *   filling while it is down) → run 2 starts, catches up, quotes, stops on SIGTERM → run 3 starts and
 *   stops at once.
 * Then the ledger opens cleanly, and per order and in total it holds exactly the venue's record of the
 * wallet's fills across the runs: nothing lost, nothing doubled; the fills made while the bot was down
 * are recorded once, by the catch-up; `ledger summary --json` prints the same totals.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { systemClock } from '../../src/core/clock.ts';
import { TESTNET } from '../../src/exchange/chains.ts';
import { createSigner } from '../../src/exchange/signing/signer.ts';
import { createVenueClient, type VenueClient } from '../../src/exchange/venue-client.ts';
import { filledShares } from '../../src/orders/venue-order-shares.ts';
import { openLedger } from '../../src/ledger/ledger.ts';
import type { Address } from '../../src/model/order.ts';
import { cli, waitFor, withTimeout, type Child } from './harness.ts';
import { ledgerRuns } from './ledger-runs.ts';

const KEY = 'continuity-bot-key';

/** The venue's record of the wallet's fills: filled shares per order (nonce), and Σ price × shares. */
async function venueFills(client: VenueClient, trader: Address): Promise<{ byNonce: Map<string, number>; shares: number; volume: bigint }> {
  const byNonce = new Map<string, number>();
  let shares = 0;
  let volume = 0n;
  for await (const o of client.orders.iterate({ trader, limit: 100 })) {
    const f = filledShares(o);
    if (f === 0) continue;
    byNonce.set(o.nonce.toLowerCase(), f);
    shares += f;
    volume += BigInt(f) * BigInt(o.price);
  }
  return { byNonce, shares, volume };
}

function ledgerFills(file: string): { byNonce: Map<string, number>; bySource: Map<string, number>; rows: number } {
  const l = openLedger({ path: file, clock: systemClock, mustExist: true, readonly: true });
  try {
    const byNonce = new Map<string, number>();
    for (const r of l.db.prepare('SELECT nonce, SUM(size) AS s FROM fills GROUP BY nonce').all() as { nonce: string; s: number }[]) byNonce.set(r.nonce, r.s);
    const bySource = new Map<string, number>();
    for (const r of l.db.prepare('SELECT source, COUNT(*) AS n FROM fills GROUP BY source').all() as { source: string; n: number }[])
      bySource.set(r.source, r.n);
    const rows = (l.db.prepare('SELECT COUNT(*) AS n FROM fills').get() as { n: number }).n;
    return { byNonce, bySource, rows };
  } finally {
    l.close();
  }
}

async function waitLine(c: Child, re: RegExp, what: string, ms = 60_000): Promise<RegExpExecArray> {
  let m: RegExpExecArray | null = null;
  await waitFor(what, () => (m = re.exec(c.out())) !== null, ms);
  return m!;
}

test('run, kill -9 during traffic, fills while down, run again: the ledger equals the venue, fill for fill', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bookmaker-continuity-'));
  const privateKey = `0x${randomBytes(32).toString('hex')}`;
  const wallet = createSigner({ privateKey, chain: TESTNET }).address;
  const sim = cli(['sim', '--port', '0', '--seed', '11', '--markets', '3', '--chain', 'testnet', '--api-key', `${KEY}:${wallet}`]);
  let client: VenueClient | null = null;
  const children: Child[] = [sim];
  try {
    const baseUrl = (await waitLine(sim, /listening (http\S+)/, 'the sim listens'))[1]!;
    client = createVenueClient({ baseUrl, chain: TESTNET, apiKey: KEY });
    const { file, ledger, run } = ledgerRuns({ dir, baseUrl, key: KEY, privateKey, children, account: '  maxDrawdown: 0' });

    // run 1: quote until the ledger holds fills, then die without cancelling anything
    const run1 = run();
    await waitFor(
      'run 1 has recorded fills',
      () => {
        try {
          return ledgerFills(ledger).rows >= 3;
        } catch {
          return false; // not created yet
        }
      },
      90_000,
    );
    run1.proc.kill('SIGKILL');
    await withTimeout(run1.exit, 10_000, 'run 1 did not die');
    // the file a crash left (WAL and all) opens cleanly
    const crashed = openLedger({ path: ledger, clock: systemClock, mustExist: true, readonly: true });
    try {
      assert.equal(crashed.db.pragma('integrity_check', { simple: true }), 'ok');
    } finally {
      crashed.close();
    }
    const atCrash = await venueFills(client, wallet);
    // its quotes are still at the venue: the counterparties keep filling them while the bot is down
    await waitFor('a fill while the bot is down', async () => (await venueFills(client!, wallet)).shares > atCrash.shares, 90_000);
    const whileDown = await venueFills(client, wallet);

    // run 2: catches up, quotes, stops cleanly; run 3: starts (catch-up: nothing new) and stops. Each
    // is stopped once it runs (its start-up done: catch-up, reconcile of what the crash left, first
    // quotes), not after a fixed time: a loaded machine can take longer than any --duration to start,
    // and a run stopped during its start-up never reconciles the crashed run's orders, which then
    // keep filling after the last run
    for (const [name, ms] of [
      ['run 2', 1_000],
      ['run 3', 0],
    ] as const) {
      const c = run();
      await waitLine(c, /bookmaker: quoting \d+ market/, `${name} runs`, 120_000);
      if (ms > 0) await new Promise((r) => setTimeout(r, ms)); // a moment of quoting (not a timing assertion)
      c.proc.kill('SIGTERM');
      assert.equal(await withTimeout(c.exit, 90_000, `${name} did not stop`), 0, c.out());
    }

    const venue = await venueFills(client, wallet);
    const books = ledgerFills(ledger);
    // fill for fill: every order's filled shares, exactly, in the books (nothing lost, nothing doubled)
    assert.deepEqual([...books.byNonce.entries()].sort(), [...venue.byNonce.entries()].sort());
    assert.ok((books.bySource.get('catch-up') ?? 0) >= 1, 'the fills made while down were recorded by the catch-up');
    // the orders filled while down: recorded once (their ledger total is the venue's, not more)
    for (const [nonce, f] of whileDown.byNonce) if ((atCrash.byNonce.get(nonce) ?? 0) < f) assert.ok((books.byNonce.get(nonce) ?? 0) >= f);

    // the CLI prints the same totals (USDC, as the backtest summary)
    const s = cli(['ledger', 'summary', '-c', file, '--json']);
    assert.equal(await withTimeout(s.exit, 60_000, 'ledger summary did not exit'), 0, s.out());
    const summary = JSON.parse(s.out()) as { fills: number; volume: number; fees: number; realisedPnl: number; startups: number };
    assert.equal(summary.fills, books.rows);
    assert.equal(Math.round(summary.volume * 1e6), Number(venue.volume / 1_000_000n));
    assert.equal(summary.fees, 0);
    assert.equal(typeof summary.realisedPnl, 'number');
    assert.equal(summary.startups, 3);
  } finally {
    for (const c of children) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
    await client?.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
