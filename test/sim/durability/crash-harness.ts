/**
 * Crash harness: the real `bookmaker sim --state FILE` (default chain: mainnet, as `bookmaker sign`) in a child process (bundled once, so a start
 * takes well under a second), signed order traffic from two wallets that cross each other, a
 * `kill -9` at a random moment while requests are in flight, and a restart that must show every
 * acknowledged order, fill, cancel and nonce. Used by the crash test and the sim-crash bench.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { MAINNET } from '../../../src/exchange/chains.ts';
import { createSigner, type Signer } from '../../../src/exchange/signing/signer.ts';
import { createLocalExchange, demoWallet } from '../../../src/sim/local-exchange.ts';
import { createRng, type Rng } from '../../../src/sim/rng.ts';
import type { Bytes32 } from '../../../src/model/order.ts';
import { spawnListening } from '../../support/sim-child.ts';

export const SEED = 9;
export const KEYS = ['alice-key', 'bob-key'] as const;

export async function bundleChild(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sim-crash-bundle-'));
  const outfile = join(dir, 'child.mjs');
  await build({
    entryPoints: [new URL('./crash-child.ts', import.meta.url).pathname],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'warning',
    banner: { js: "import { createRequire as __bmCreateRequire } from 'node:module'; const require = __bmCreateRequire(import.meta.url);" },
  });
  return outfile;
}

export interface Running {
  child: ChildProcess;
  base: string;
  exited: Promise<number | null>;
  stderr: () => string;
}

export async function startSim(bundle: string, stateFile: string, extra: string[] = []): Promise<Running> {
  const args = [
    bundle,
    'sim',
    '--port',
    '0',
    '--seed',
    String(SEED),
    '--no-agents',
    '--markets',
    '1',
    ...KEYS.flatMap((k) => ['--api-key', k]),
    '--state',
    stateFile,
    ...extra,
  ];
  const { child, base, exited, stderr } = await spawnListening(args);
  return { child, base, exited, stderr };
}

export interface Acked {
  id: number;
  nonce: string;
  who: 0 | 1;
  body: unknown;
}

export interface Ledger {
  creates: Acked[];
  /** nonces whose cancel was acknowledged (201, not alreadyCancelled), per wallet */
  cancels: { who: 0 | 1; nonce: string }[];
}

export function signers(): [Signer, Signer] {
  return KEYS.map((k) => createSigner({ privateKey: demoWallet(SEED, k).privateKey, chain: MAINNET })) as [Signer, Signer];
}

async function post(base: string, path: string, body: unknown, key: string): Promise<{ status: number; body: any }> {
  for (;;) {
    const r = await fetch(base + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await r.text();
    // a 429 changed nothing: wait out the key's bucket and send the same body again
    if (r.status === 429) {
      await new Promise((res) => setTimeout(res, 1000 * Math.max(0.2, Number(r.headers.get('retry-after') ?? 1))));
      continue;
    }
    return { status: r.status, body: text ? JSON.parse(text) : undefined };
  }
}

async function get(base: string, path: string, key: string): Promise<{ status: number; body: any }> {
  for (;;) {
    const r = await fetch(base + path, { headers: { authorization: `Bearer ${key}` } });
    const body = await r.json();
    // the checks are many GETs: wait out the key's rate limit rather than count a 429 as a loss
    if (r.status === 429) {
      await new Promise((res) => setTimeout(res, 1000 * Math.max(0.2, Number(r.headers.get('retry-after') ?? 1))));
      continue;
    }
    return { status: r.status, body };
  }
}

/** Traffic until `stop()` is true; answers that never arrive (the process died) are simply not acknowledged. */
export async function traffic(
  base: string,
  marketId: string,
  s: [Signer, Signer],
  rng: Rng,
  ledger: Ledger,
  stop: () => boolean,
  workers = 6,
): Promise<number> {
  let sent = 0;
  const one = async (w: number): Promise<void> => {
    while (!stop()) {
      const who = (w % 2) as 0 | 1;
      const r = rng.next();
      try {
        if (r < 0.2) {
          const mine = ledger.creates.filter((c) => c.who === who);
          if (mine.length === 0) continue;
          const pick = mine[Math.floor(rng.next() * mine.length)]!;
          const res = await post(base, '/orders/cancel', s[who].signCancel(pick.nonce as Bytes32), KEYS[who]);
          if (res.status === 201 && res.body.alreadyCancelled === false) ledger.cancels.push({ who, nonce: pick.nonce });
        } else {
          const price = (30 + Math.floor(rng.next() * 31)) * 10_000;
          const body = s[who].signOrder({
            marketId: marketId as Bytes32,
            outcomeIndex: who === 0 ? 1 : 0,
            side: 0,
            price,
            size: (1 + Math.floor(rng.next() * 3)) * 1_000_000,
          });
          sent++;
          const res = await post(base, '/orders', body, KEYS[who]);
          if (res.status === 201) ledger.creates.push({ id: res.body.order.id, nonce: body.nonce, who, body });
          else if (res.status !== 400) throw new Error(`create answered ${res.status}: ${JSON.stringify(res.body)}`);
        }
      } catch (e) {
        if (stop()) return;
        const code = (e as { cause?: { code?: string } }).cause?.code;
        if (code === 'ECONNRESET' || code === 'ECONNREFUSED' || code === 'UND_ERR_SOCKET' || (e as Error).message === 'fetch failed') return; // the process died
        throw e;
      }
    }
  };
  await Promise.all(Array.from({ length: workers }, (_, w) => one(w)));
  return sent;
}

/**
 * Acknowledged creates are there under their ids (those since `from`, plus a random sample of 200
 * older ones; the final in-process check covers all); acknowledged cancels stayed cancelled;
 * replays are 409.
 */
export async function verify(base: string, ledger: Ledger, rng: Rng, replays = 20, from = 0): Promise<{ checked: number; replayed: number }> {
  const errors: string[] = [];
  const cancelled = new Set(ledger.cancels.map((c) => `${c.who}|${c.nonce}`));
  const targets = ledger.creates.slice(from);
  for (let k = 0; k < 200 && from > 0; k++) targets.push(ledger.creates[Math.floor(rng.next() * from)]!);
  let i = 0;
  const next = async (): Promise<void> => {
    while (i < targets.length) {
      const c = targets[i++]!;
      const r = await get(base, `/orders/${c.id}`, KEYS[c.who]);
      if (r.status !== 200 || r.body.nonce !== c.nonce) errors.push(`acknowledged order ${c.id} (${c.nonce}): ${r.status} ${r.body?.nonce}`);
      else if (cancelled.has(`${c.who}|${c.nonce}`) && r.body.status !== 'cancelled')
        errors.push(`order ${c.id}: cancel acknowledged, status ${r.body.status}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, next));
  const checked = targets.length;
  let replayed = 0;
  for (let k = 0; k < replays && ledger.creates.length; k++) {
    const c = ledger.creates[Math.floor(rng.next() * ledger.creates.length)]!;
    const r = await post(base, '/orders', c.body, KEYS[c.who]);
    if (r.status !== 409) errors.push(`replay of acknowledged order ${c.id} answered ${r.status}`);
    replayed++;
  }
  if (errors.length) throw new Error(`${errors.length} problem(s) after restart:\n${errors.slice(0, 10).join('\n')}`);
  return { checked, replayed };
}

export interface CrashRun {
  cycles: number;
  acked: number;
  cancels: number;
  checked: number;
  replayed: number;
  sent: number;
}

/**
 * `cycles` rounds of start → verify → traffic → kill -9 at a random moment; then a clean restart checks the engine's
 * invariants. The random moment (50 ms + up to `maxRunMs`) is counted from the cycle's `minAcked`-th acknowledged
 * create (0: from the traffic's start), so a busy machine, slow to answer, still kills each cycle under acknowledged
 * traffic.
 */
export async function crashCycles(bundle: string, stateFile: string, cycles: number, seed: number, maxRunMs = 600, minAcked = 0): Promise<CrashRun> {
  const rng = createRng(seed);
  const s = signers();
  const ledger: Ledger = { creates: [], cancels: [] };
  let checked = 0;
  let replayed = 0;
  let sent = 0;
  let marketId = '';
  let verifiedUpTo = 0;
  for (let c = 0; c < cycles; c++) {
    const run = await startSim(bundle, stateFile);
    try {
      if (!marketId) marketId = (await get(run.base, '/markets?limit=1', KEYS[0])).body.markets[0].id;
      const v = await verify(run.base, ledger, rng, c === 0 ? 0 : 10, verifiedUpTo);
      verifiedUpTo = ledger.creates.length;
      checked += v.checked;
      replayed += v.replayed;
      let dead = false;
      let ended = false;
      const killAfter = 50 + Math.floor(rng.next() * maxRunMs);
      const cycleFrom = ledger.creates.length;
      const killer = (async () => {
        // the cycle's first acknowledged creates, however long a busy machine takes (or until the traffic ended)
        while (ledger.creates.length - cycleFrom < minAcked && !ended) await new Promise((r) => setTimeout(r, 5));
        await new Promise((r) => setTimeout(r, killAfter));
        dead = true;
        run.child.kill('SIGKILL');
      })();
      try {
        sent += await traffic(run.base, marketId, s, rng, ledger, () => dead);
      } finally {
        ended = true;
      }
      await killer;
      await run.exited;
    } finally {
      if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
    }
  }
  // a last restart in-process: all there, and the engine's invariants (conservation included) hold
  const run = await startSim(bundle, stateFile);
  const v = await verify(run.base, ledger, rng, 10, verifiedUpTo);
  checked += v.checked;
  replayed += v.replayed;
  run.child.kill('SIGTERM');
  const code = await run.exited;
  if (code !== 0) throw new Error(`clean stop exited ${code}: ${run.stderr()}`);
  const ex = createLocalExchange({ stateFile, seed: SEED, apiKeys: KEYS.map((key) => ({ key })), expirySweepMs: 0, chain: MAINNET });
  try {
    const bad = ex.state.engine.engine.checkInvariants();
    if (bad.length) throw new Error(`invariants broken after the crashes: ${bad.join('; ')}`);
    const byNonce = new Set(ex.state.stores.orders.map((o) => o.nonce));
    for (const c of ledger.creates) if (!byNonce.has(c.nonce as Bytes32)) throw new Error(`order ${c.id} missing from the restored state`);
  } finally {
    await ex.close();
  }
  return { cycles, acked: ledger.creates.length, cancels: ledger.cancels.length, checked, replayed, sent };
}
