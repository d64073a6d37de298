/**
 * rotation: what starting and retiring a market costs a running bot, against the local
 * exchange in this process over real HTTP (no counterparties; a second account rests a book in each
 * new market). The bot runs `markets: { refreshSeconds: 1, select: [ { all: true } ] }`; each cycle
 * adds a market, waits until the bot quotes it, then closes the previous one (status closed: its
 * resting quotes stay at the venue until the bot cancels them) and waits until it is released.
 *
 * Reported (ms, p50 / p99 over the cycles):
 *   start          selected → quoting: feeds, first book and balance read, one-market order read, first tick
 *                  (the rotation's own measure)
 *   add → quote    market created → our first order visible at the venue (includes the wait for the
 *                  next refresh, at most refreshSeconds)
 *   retire         quotes pulled → cancels confirmed by the venue → state released (the rotation's measure;
 *                  also bookmaker_market_retire_seconds)
 *   close → gone   market closed at the venue → released (includes noticing it: the next refresh)
 * and the per-market state left after the cycles (store markets, health model, kernel slots: only
 * the markets still quoted, once the last retired market's cancelled orders have settled — they count
 * until the fills poll reports them closed). Baseline: the refresh interval, the promise being "within one refresh".
 *
 *   npm run bench -- rotation [--cycles N]
 */
import { parseConfigText } from '../../src/config/load-config.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { openOrders, setBook, startExchange, startTestBot, waitFor, yaml } from '../e2e/harness.ts';
import { percentile, report } from './lib.ts';

const arg = (name: string, d: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : d;
};
const CYCLES = arg('cycles', 20);
const REFRESH_MS = 1_000;

const h = await startExchange({ markets: 2 });
for (const m of h.markets) await setBook(h, m, 480_000, 520_000);
const cfg = await parseConfigText(yaml(h, { markets: `  refreshSeconds: ${REFRESH_MS / 1000}\n  select:\n    - all: true` }), '', { env: {} });
const bot = await startTestBot(h, cfg);
await waitFor('start-up markets quoted', async () => (await openOrders(h.bot)).length === 4, 30_000);

const addToQuote: number[] = [];
const closeToGone: number[] = [];
let previous: Bytes32 = h.markets[0]!;
for (let i = 0; i < CYCLES; i++) {
  const t0 = performance.now();
  const m = h.ex.state.services.addMarket({ question: `rotation bench market ${i}` }, Date.now()).id as Bytes32;
  await setBook(h, m, 470_000, 530_000);
  await waitFor('quoted', async () => (await openOrders(h.bot, m)).length === 2, 30_000);
  addToQuote.push(performance.now() - t0);
  const t1 = performance.now();
  h.ex.state.stores.markets.get(previous.toLowerCase())!.status = 'closed';
  await waitFor('released', () => !bot.rotation.isActive(previous) && !bot.rotation.isRetiring(previous), 30_000);
  closeToGone.push(performance.now() - t1);
  if ((await openOrders(h.bot, previous)).length !== 0) throw new Error(`orders left in retired market ${previous}`);
  previous = m;
}
const events = bot.rotation.recent();
const startMs = events.filter((e) => e.kind === 'started' && e.reason === 'selected' && e.ms !== undefined).map((e) => e.ms!);
const retireMs = events.filter((e) => e.kind === 'retired' && e.ms !== undefined).map((e) => e.ms!);
// a retired market's record stays while orders the venue ended are settling (their fills may still come)
const tSettle = performance.now();
await waitFor('retired records settled', () => bot.store.state.markets.size === bot.rotation.activeIds().length, 60_000).catch(() => undefined);
const settleMs = performance.now() - tSettle;
const held = {
  store: bot.store.state.markets.size,
  health: bot.healthModel.markets().length,
  kernel: bot.kernel.marketIds().length,
  active: bot.rotation.activeIds().length,
};
const code = await bot.stop('bench');
await h.close();

const s = (a: number[]): number[] => [...a].sort((x, y) => x - y);
const p = (a: number[], q: number): number => Math.round(percentile(s(a), q) * 10) / 10;
const retireP50 = p(retireMs, 0.5);
report(
  [
    ['cycles (a market added and one closed)', CYCLES],
    ['refresh interval, ms (baseline)', REFRESH_MS],
    ['start p50 / p99, ms', `${p(startMs, 0.5)} / ${p(startMs, 0.99)}`],
    ['add → first quote p50 / p99, ms', `${p(addToQuote, 0.5)} / ${p(addToQuote, 0.99)}`],
    ['retire p50 / p99, ms', `${retireP50} / ${p(retireMs, 0.99)}`],
    ['close → released p50 / p99, ms', `${p(closeToGone, 0.5)} / ${p(closeToGone, 0.99)}`],
    ['left after the cycles: store / health / kernel / active', `${held.store} / ${held.health} / ${held.kernel} / ${held.active}`],
    ['last retired record settled after, ms', Math.round(settleMs)],
    ['exit code', code],
  ],
  {
    name: 'rotation',
    unit: 'ms',
    value: retireP50,
    p50: retireP50,
    p99: p(retireMs, 0.99),
    baseline: 'refresh interval',
    baselineValue: REFRESH_MS,
    ratio: Math.round((p(addToQuote, 0.99) / REFRESH_MS) * 100) / 100,
    startP50: p(startMs, 0.5),
    addToQuoteP99: p(addToQuote, 0.99),
    closeToGoneP99: p(closeToGone, 0.99),
    left: held,
  },
);
