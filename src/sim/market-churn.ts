/**
 * Market churn of the local exchange: markets that come and go at a pace a test can see.
 *
 * Every `newMarketEveryMs` a generated market is created (seeded question, slug, category; deadline =
 * creation + `lifetimeMs`). Every market with a deadline — generated or not — then goes the way the
 * venue shows it (openapi `status` active|pending|resolved|closed, `resolutionStatus` none|pending|resolved):
 *
 *     active ──deadline──► closed (resolutionStatus pending: no new order is accepted, resting
 *                                   orders stay and can be cancelled, nothing matches; the book
 *                                   streams send `event: status` and go on)
 *            ──deadline + resolutionDelayMs──► resolved (seeded payout YES or NO; resting orders
 *                                   voided MARKET_RESOLVED; positions claimable; a `resolution`
 *                                   activity entry; the book streams send `event: status` and end)
 *
 * With `settleOutside` (synthetic backtests, and `bookmaker sim` / `venue.local` by default: docs/edge.md,
 * "Markets that resolve and are replaced"), an active market whose payout probability leaves [settleOutside, 1 − settleOutside] is resolved at
 * once, as the venue resolves a market whose outcome is known; with `maxLiveMarkets` and a short
 * `newMarketEveryMs` a fresh market takes its place at the next pass.
 *
 * Everything is a journalled exchange service (addMarket, closeMarket, resolveMarket), so a state
 * file restores it, and the schedule itself is derived from the stored markets (each generated market
 * carries its index in `metadata.churnIndex`), so a restarted exchange continues the same sequence:
 * market n of seed s is the same market whichever process created it.
 *
 * `step()` does one pass against the exchange clock; `startMarketChurn` runs it on the exchange's
 * timer. No wall clock is read here.
 */
import type { Bytes32 } from '../model/order.ts';
import { generateMarket } from './agents/market-metadata.ts';
import { deriveSeed } from './agents/random-draws.ts';
import type { LocalExchange } from './local-exchange.ts';
import type { MarketRecord } from './records.ts';
import { createRng } from './rng.ts';

export interface MarketChurnOptions {
  seed: number;
  /** ms between generated markets (0 = create none; deadlines of existing markets are still kept) */
  newMarketEveryMs?: number;
  /** how long a generated market trades before its deadline, ms (default 30 min) */
  lifetimeMs?: number;
  /**
   * ms between the deadline (market closed, resolution pending) and the resolution (default: a tenth
   * of the lifetime, at most 60 s; 0 = resolved at the deadline)
   */
  resolutionDelayMs?: number;
  /** no new market while this many generated markets are active (0 = no cap, the default) */
  maxLiveMarkets?: number;
  /** ms between passes of `startMarketChurn` (default 500) */
  tickMs?: number;
  /**
   * resolve an active market at once when its payout probability (`payoutProbability`, the agents'
   * hidden fair value) is at or beyond this far from 0 or 1 (0 = never, the default; below 0.5): the
   * event is as good as decided, as a venue resolves a market whose outcome is known. A market that
   * reports no probability keeps its deadline only.
   */
  settleOutside?: number;
  /** told of each market the churn creates or resolves (synthetic backtests follow the markets with it) */
  onEvent?: (e: ChurnEvent) => void;
}

export interface ChurnEvent {
  readonly type: 'created' | 'closed' | 'resolved';
  readonly market: MarketRecord;
  readonly atMs: number;
}

export interface ChurnCounts {
  created: number;
  closed: number;
  resolved: number;
  /** creations skipped because `maxLiveMarkets` generated markets were active */
  capped: number;
  /** of `resolved`, markets resolved before their deadline because their probability left the `settleOutside` band */
  settled: number;
}

export interface MarketChurn {
  /** one pass: close markets past their deadline, resolve closed ones past the delay, create one when due */
  step(): void;
  /** create the next generated market now (outside the schedule; e.g. a chaos event); `lifetimeMs` overrides the setting */
  createMarket(lifetimeMs?: number): MarketRecord | undefined;
  stop(): void;
  /** what this instance did since it started (a restored exchange's earlier work is not counted) */
  readonly counts: Readonly<ChurnCounts>;
  /**
   * P(YES) used for a market's resolution draw (default 0.5). The counterparties set it to their
   * hidden fair value, so the fair value was a calibrated forecast.
   */
  payoutProbability: (marketId: Bytes32) => number | undefined;
  readonly settings: Readonly<Required<Omit<MarketChurnOptions, 'seed' | 'tickMs' | 'onEvent'>>>;
}

const DEFAULT_LIFETIME_MS = 30 * 60_000;
/**
 * The settle band of `bookmaker sim`, `venue.local` and the synthetic backtest: a market whose hidden
 * fair value is within 5 % of 0 or 1 resolves (docs/edge.md, "Markets that resolve and are replaced").
 */
export const DEFAULT_SETTLE_OUTSIDE = 0.05;

export function defaultResolutionDelayMs(lifetimeMs: number): number {
  return Math.min(60_000, Math.floor(lifetimeMs / 10));
}

function checkMs(name: string, v: number, min: number): number {
  if (!Number.isSafeInteger(v) || v < min) throw new Error(`market churn: ${name} must be an integer ≥ ${min} (ms), got ${v}`);
  return v;
}

/** The churn index of a generated market (undefined for any other market). */
export function churnIndexOf(m: MarketRecord): number | undefined {
  const n = m.metadata.churnIndex;
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** The payout of YES for a market's resolution: a seeded draw from (seed, market id), YES with probability `pYes`. */
export function resolutionPayout(seed: number, marketId: string, pYes: number): number {
  let h = 0;
  for (let i = 2; i < marketId.length; i++) h = (Math.imul(h, 31) + marketId.charCodeAt(i)) >>> 0;
  const rng = createRng(deriveSeed(seed, h, 'churn-resolution'));
  const p = Number.isFinite(pYes) ? Math.min(1, Math.max(0, pYes)) : 0.5;
  return rng.next() < p ? 1_000_000 : 0;
}

export function createMarketChurn(ex: LocalExchange, opts: MarketChurnOptions): MarketChurn {
  const { state } = ex;
  const every = checkMs('newMarketEveryMs', opts.newMarketEveryMs ?? 0, 0);
  const lifetime = checkMs('lifetimeMs', opts.lifetimeMs ?? DEFAULT_LIFETIME_MS, 1);
  const delay = checkMs('resolutionDelayMs', opts.resolutionDelayMs ?? defaultResolutionDelayMs(lifetime), 0);
  const cap = checkMs('maxLiveMarkets', opts.maxLiveMarkets ?? 0, 0);
  const settle = opts.settleOutside ?? 0;
  if (!(Number.isFinite(settle) && settle >= 0 && settle < 0.5))
    throw new Error(`market churn: settleOutside must be a probability from 0 to below 0.5, got ${settle}`);
  const counts: ChurnCounts = { created: 0, closed: 0, resolved: 0, capped: 0, settled: 0 };
  const tell = (type: ChurnEvent['type'], id: Bytes32, atMs: number): void => {
    const market = opts.onEvent ? state.services.findMarket(id) : undefined;
    if (market) opts.onEvent!({ type, market, atMs });
  };

  // the schedule continues from the stored markets (a restored exchange goes on where it stopped)
  let lastIndex = 0;
  let lastCreatedAt = state.clock.now();
  for (const m of state.stores.markets.values()) {
    const n = churnIndexOf(m);
    if (n !== undefined && n > lastIndex) {
      lastIndex = n;
      lastCreatedAt = m.createdAt;
    }
  }
  let stopped = false;

  const churn: MarketChurn = {
    counts,
    payoutProbability: () => undefined,
    settings: { newMarketEveryMs: every, lifetimeMs: lifetime, resolutionDelayMs: delay, maxLiveMarkets: cap, settleOutside: settle },
    step,
    createMarket: (life) => create(state.clock.now(), life === undefined ? lifetime : checkMs('lifetimeMs', life, 1)),
    stop: () => {
      stopped = true;
    },
  };

  function keepDeadlines(now: number): number {
    let liveGenerated = 0;
    // a copy: resolving changes nothing in the map, but a service could add a market
    for (const m of [...state.stores.markets.values()]) {
      if (settle > 0 && m.status === 'active' && now < m.deadline) {
        const p = churn.payoutProbability(m.id);
        if (p !== undefined && (p <= settle || p >= 1 - settle)) {
          state.services.resolveMarket(m.id, resolutionPayout(opts.seed, m.id, p), now, 'simulated resolution: the outcome is as good as known');
          counts.resolved++;
          counts.settled++;
          tell('resolved', m.id, now);
          continue;
        }
      }
      if (m.status === 'active' && now >= m.deadline) {
        state.services.closeMarket(m.id, now);
        counts.closed++;
        tell('closed', m.id, now);
      }
      if (m.status === 'closed' && now >= m.deadline + delay) {
        const p = churn.payoutProbability(m.id) ?? 0.5;
        state.services.resolveMarket(m.id, resolutionPayout(opts.seed, m.id, p), now, 'simulated resolution after the deadline');
        counts.resolved++;
        tell('resolved', m.id, now);
      }
      if (m.status === 'active' && churnIndexOf(m) !== undefined) liveGenerated++;
    }
    return liveGenerated;
  }

  function create(now: number, life: number): MarketRecord | undefined {
    const n = lastIndex + 1;
    const g = generateMarket(createRng(deriveSeed(opts.seed, n, 'churn-market')), now, life);
    lastIndex = n;
    lastCreatedAt = now;
    if (state.services.findMarket(g.marketId)) return undefined; // a seed collision with a market made by hand: skip the index
    const m = state.services.addMarket(
      {
        id: g.marketId,
        question: g.question,
        shortQuestion: g.shortQuestion,
        slug: g.slug,
        category: g.category,
        deadline: g.endTimeMs,
        metadata: { churnIndex: n, initialProbability: g.initialProbability },
      },
      now,
    );
    counts.created++;
    tell('created', m.id, now);
    return m;
  }

  function step(): void {
    if (stopped) return;
    const now = state.clock.now();
    const live = keepDeadlines(now);
    if (every > 0 && now - lastCreatedAt >= every) {
      if (cap > 0 && live >= cap) {
        counts.capped++;
        lastCreatedAt = now; // the next try is one period later, not every tick
        return;
      }
      create(now, lifetime);
    }
  }

  return churn;
}

/** The churn settings as a config or the CLI gives them (seconds), in the churn's options (whole ms). */
export interface ChurnSeconds {
  newMarketEverySeconds: number;
  marketLifetimeSeconds: number;
  resolutionDelaySeconds: number | null;
  maxLiveMarkets: number;
  /** the settle band (`settleOutside`; absent: none) */
  settleOutside?: number;
}

export function churnOptions(seed: number, s: ChurnSeconds): MarketChurnOptions {
  const ms = (x: number): number => Math.round(x * 1000);
  return {
    seed,
    newMarketEveryMs: ms(s.newMarketEverySeconds),
    lifetimeMs: Math.max(1, ms(s.marketLifetimeSeconds)),
    ...(s.resolutionDelaySeconds !== null ? { resolutionDelayMs: ms(s.resolutionDelaySeconds) } : {}),
    maxLiveMarkets: s.maxLiveMarkets,
    ...(s.settleOutside !== undefined ? { settleOutside: s.settleOutside } : {}),
    // a pass at least as often as the shortest period asks, so a deadline is kept within a tick
    tickMs: Math.max(20, Math.floor(Math.min(500, ms(s.marketLifetimeSeconds) / 4, s.newMarketEverySeconds > 0 ? ms(s.newMarketEverySeconds) / 4 : 500))),
  };
}

/** Create the churn and run it on the exchange clock (every `tickMs`, default 500 ms). */
export function startMarketChurn(ex: LocalExchange, opts: MarketChurnOptions): MarketChurn {
  const churn = createMarketChurn(ex, opts);
  ex.every(opts.tickMs ?? 500, churn.step);
  return churn;
}
