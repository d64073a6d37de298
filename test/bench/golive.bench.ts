/**
 * `npm run bench -- golive [--rounds N]`: how fast an operator learns what stops a live start.
 *  - doctor, healthy: runDoctor in-process against the local exchange over HTTP (every check), wall ms;
 *  - time to the diagnosis "this API key lacks the trade permission": `bookmaker doctor` (runDoctor)
 *    against the baseline, the bot itself (startBot with the same key) until it halts on the venue's
 *    403 at its first create — what an operator had before doctor. Same exchange (with counterparties,
 *    so the bot has books to quote), alternating, median of N rounds each;
 *  - a venue that never answers: doctor's wall time with its default budget (5 s per check, 20 s in all).
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger } from '../../src/core/logger.ts';
import { parseConfigText } from '../../src/config/load-config.ts';
import { TESTNET } from '../../src/exchange/chains.ts';
import { createSigner } from '../../src/exchange/signing/signer.ts';
import { runDoctor } from '../../src/doctor/run-doctor.ts';
import { startBot } from '../../src/runtime/bot.ts';
import { counterpartyAgents, startCounterparties } from '../../src/sim/counterparties.ts';
import { createLocalExchange } from '../../src/sim/local-exchange.ts';
import { percentile, report, versus } from './lib.ts';

const ri = process.argv.indexOf('--rounds');
const ROUNDS = ri > 0 ? Number(process.argv[ri + 1]) : 5;

const privateKey = `0x${randomBytes(32).toString('hex')}`;
const wallet = createSigner({ privateKey, chain: TESTNET }).address;
const ex = createLocalExchange({
  seed: 9,
  markets: 3,
  chain: TESTNET,
  apiKeys: [
    { key: 'bench-good-key', wallet },
    { key: 'bench-ro-key', wallet, perms: ['read'] },
  ],
  rateLimit: { capacity: 100_000, refillPerSecond: 100_000 },
});
const agents = startCounterparties(ex, { seed: 9, ...counterpartyAgents({ noiseTakers: 1, informedTakers: 0, makers: 1, takerRatePerSecond: 0.5 }) });
const baseUrl = await ex.start(0);
const config = await parseConfigText(
  `venue:\n  chain: testnet\n  baseUrl: ${baseUrl}\ndefaults:\n  strategy:\n    name: bands\n    params:\n      bands:\n        - { minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: 10 }\n  risk:\n    maxNotional: 100\nmarkets:\n  - all: true\nmetrics:\n  port: 0\nledger:\n  path: ':memory:'\nwatchdog:\n  blockedLimitSeconds: 0\n`,
  '',
  { env: {} },
);
const env = (apiKey: string): NodeJS.ProcessEnv => ({ BOOKMAKER_PRIVATE_KEY: privateKey, BOOKMAKER_API_KEY: apiKey });

async function doctorMs(apiKey: string, expect: string): Promise<number> {
  const t0 = performance.now();
  const r = await runDoctor({ config, env: env(apiKey), metricsPort: 0 });
  const ms = performance.now() - t0;
  const failed = r.checks
    .filter((c) => c.result === 'fail')
    .map((c) => c.name)
    .join(',');
  if (failed !== expect)
    throw new Error(`doctor: expected failures '${expect}', got '${failed}': ${JSON.stringify(r.checks.filter((c) => c.result === 'fail'))}`);
  return ms;
}

async function botHaltMs(): Promise<number> {
  const t0 = performance.now();
  const bot = await startBot({ config, logger: silentLogger, apiKey: 'bench-ro-key', env: env('bench-ro-key'), metricsPort: 0, adminPort: 0 });
  const code = await Promise.race([bot.exit, new Promise<number>((r) => setTimeout(() => r(-1), 60_000))]);
  const ms = performance.now() - t0;
  if (code !== 4) {
    await bot.stop();
    throw new Error(`the bot with a read-only key did not halt (exit ${code})`);
  }
  return ms;
}

const healthy: number[] = [];
const diagnose: number[] = [];
const halt: number[] = [];
await doctorMs('bench-good-key', ''); // warm-up: module loading, connections
for (let i = 0; i < ROUNDS; i++) {
  healthy.push(await doctorMs('bench-good-key', ''));
  diagnose.push(await doctorMs('bench-ro-key', 'permissions'));
  halt.push(await botHaltMs());
}

// a venue that accepts connections and never answers, with the default budget
const parked: import('node:http').ServerResponse[] = [];
const stall = createServer((_q, res) => void parked.push(res));
await new Promise<void>((r) => stall.listen(0, '127.0.0.1', r));
const stallUrl = `http://127.0.0.1:${(stall.address() as AddressInfo).port}/v2`;
const t0 = performance.now();
const stalled = await runDoctor({ config, env: env('bench-good-key'), baseUrl: stallUrl, metricsPort: 0 });
const stalledMs = performance.now() - t0;
if (stalled.checks.find((c) => c.name === 'venue')!.result !== 'fail') throw new Error('the stalled venue passed');
for (const r of parked) r.destroy();
stall.closeAllConnections();
stall.close();
agents.stop();
await ex.close();

const med = (xs: number[]): number =>
  percentile(
    [...xs].sort((a, b) => a - b),
    0.5,
  );
const doctorDiag = med(diagnose);
const botDiag = med(halt);
report(
  [
    [`doctor, healthy venue (${ROUNDS} rounds), median ms`, med(healthy).toFixed(0)],
    [`doctor, healthy venue, max ms`, Math.max(...healthy).toFixed(0)],
    ['doctor: "key lacks the trade permission", median ms', doctorDiag.toFixed(0)],
    ['run (baseline): halt on the 403 at its first create, median ms', botDiag.toFixed(0)],
    ['doctor, venue never answers (budget 5 s per check, 20 s total), ms', stalledMs.toFixed(0)],
  ],
  versus(
    {
      name: 'golive',
      unit: 'ms to the trade-permission diagnosis',
      value: doctorDiag,
      baseline: 'bookmaker run halting on the 403',
      baselineValue: botDiag,
      ratio: botDiag / doctorDiag,
    },
    { p50: Math.round(med(healthy)) },
    1,
  ),
);
process.exit(0);
