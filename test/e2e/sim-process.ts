/**
 * `bookmaker sim` as a SEPARATE process (a venue that keeps answering while the bot's process is
 * blocked), with its demo maker key: its wallet, private key and a client on it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { TESTNET } from '../../src/exchange/chains.ts';
import { createVenueClient, type VenueClient } from '../../src/exchange/venue-client.ts';
import type { VenueOrder } from '../../src/model/order.ts';
import { cli, waitFor, type Child } from './harness.ts';
export { freePort } from '../support/net.ts';

export interface SimProcess {
  child: Child;
  baseUrl: string;
  key: string;
  wallet: `0x${string}`;
  privateKey: string;
  client: VenueClient;
  openOrders(): Promise<VenueOrder[]>;
  close(): Promise<void>;
}

export async function startSimProcess(seed = 5, extra: string[] = []): Promise<SimProcess> {
  // the tests' bots and this client sign for testnet; `bookmaker sim` verifies mainnet by default
  const child = cli(['sim', '--port', '0', '--seed', String(seed), '--markets', '2', '--chain', 'testnet', ...extra]);
  const key = `sim-demo-${seed}-maker`;
  const re = new RegExp(`demo-key ${key} wallet (0x[0-9a-fA-F]{40}) perms \\S+ private-key (0x[0-9a-fA-F]{64})`);
  try {
    await waitFor('bookmaker sim prints its URL and demo keys', () => /listening (\S+)/.test(child.out()) && re.test(child.out()), 30_000);
  } catch (e) {
    child.proc.kill('SIGKILL'); // or the child keeps the test file's process alive
    throw e;
  }
  const baseUrl = /listening (\S+)/.exec(child.out())![1]!;
  const [, wallet, privateKey] = re.exec(child.out())!;
  const client = createVenueClient({ baseUrl, chain: TESTNET, apiKey: key, retry: { maxAttempts: 2 } });
  return {
    child,
    baseUrl,
    key,
    wallet: wallet as `0x${string}`,
    privateKey: privateKey!,
    client,
    async openOrders() {
      const out: VenueOrder[] = [];
      for await (const o of client.orders.iterate({ trader: wallet as `0x${string}`, status: ['open'], limit: 100 })) out.push(o);
      return out;
    },
    async close() {
      await client.close();
      child.proc.kill('SIGTERM');
      // (the 5 s timer is cleared when the child exits first: a live timer keeps the test file's process up)
      let t: NodeJS.Timeout | undefined;
      await Promise.race([child.exit, new Promise((r) => (t = setTimeout(r, 5_000)))]);
      clearTimeout(t);
      child.proc.kill('SIGKILL');
    },
  };
}

/**
 * One `bookmaker sim` child (`startSimProcess(seed, extra)`) and one temp folder for a whole test file:
 * handed to `use` before the file's first test, stopped and removed after its last.
 *
 *   let sim: SimProcess; let dir: string;
 *   simForFile(11, [], (s, d) => ((sim = s), (dir = d)));
 */
export function simForFile(seed: number, extra: string[], use: (sim: SimProcess, dir: string) => void): void {
  let sim: SimProcess | undefined;
  let dir: string | undefined;
  before(async () => {
    sim = await startSimProcess(seed, extra);
    dir = mkdtempSync(join(tmpdir(), 'bookmaker-e2e-'));
    use(sim, dir);
  });
  after(async () => {
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
}
