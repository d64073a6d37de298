/**
 * A background maker: every refresh it pulls its ladder in the market and rests a new one around
 * its own (noisy) view of the fair value — bids as BUY YES, asks as BUY NO at 1 − p, so it needs
 * only collateral. With a wider spread, smaller size or a noisier fair view it doubles as one of the
 * "other makers".
 */
import type { EngineCommand, OrderId } from '../../engine/types.ts';
import type { Rng } from '../rng.ts';
import type { AgentStep, AgentView } from './agent-types.ts';
import { snapPrice, toSubmitOrder } from './order-builder.ts';
import { gaussian } from './random-draws.ts';

export interface MakerConfig {
  trader: number;
  /** levels per side (default 3) */
  levels: number;
  /** distance of the first level from fair value, in ticks (default 2) */
  halfSpreadTicks: number;
  /** distance between levels, in ticks (default 1) */
  stepTicks: number;
  /** mean shares per level in 1e-6 units (default 50 shares) */
  size: number;
  /** relative size jitter in [0, 1) (default 0.5) */
  sizeJitter: number;
  /** ms between ladder refreshes (default 2000) */
  refreshMs: number;
  /** std of the maker's error about the fair value, in probability (default 0.003) */
  fairNoise: number;
  /**
   * how slowly the maker learns the fair value, in seconds (default 0: at once): it quotes around
   * its belief, which moves toward the fair value by 1 − e^(−dt/lag) of the gap over dt, so its
   * quotes trail a move for about `lagSeconds` and informed takers keep trading against them
   * meanwhile (the slowly growing adverse markout of a real book; docs/edge.md)
   */
  lagSeconds: number;
  /** the part of a move of the fair value that trails (default 1: all of it); the rest is learned at once */
  lagShare: number;
  /**
   * keep the queue place (default false: every refresh cancels the whole ladder and posts a new one):
   * a level whose price is unchanged keeps its resting order and its time priority; only the orders
   * whose price moved are cancelled, and a partly filled level is topped up by a new order behind the
   * others at that price, as a maker on a deep book does (needs `MakerOrders` to learn its orders' fate)
   */
  keepQueue: boolean;
}

/** What a maker keeping its queue place learns of its own orders: the shares an order still rests (0 once done). */
export interface MakerOrders {
  remaining(id: OrderId): number;
}

/** A level of a maker keeping its queue place: bids as BUY YES (outcome 1), asks as BUY NO (outcome 0) at 1 − p. */
export interface RestingLevel {
  outcome: 0 | 1;
  /** the outcome's price, 1e-6 */
  price: number;
  /** the shares the maker wants resting at this level (drawn when the level was first posted) */
  target: number;
  /** its resting orders, oldest first (filled in by `noteSubmitted` once the engine assigns the ids) */
  ids: OrderId[];
}

export const DEFAULT_MAKER: Readonly<Omit<MakerConfig, 'trader'>> = Object.freeze({
  levels: 3,
  halfSpreadTicks: 2,
  stepTicks: 1,
  size: 50_000_000,
  sizeJitter: 0.5,
  refreshMs: 2000,
  fairNoise: 0.003,
  lagSeconds: 0,
  lagShare: 1,
  keepQueue: false,
});

export interface MakerState {
  nextMs: number;
  /** the trailing part of the maker's view of the fair value (probability) and when it was last updated; only with a lag */
  belief?: number;
  beliefMs?: number;
  /** with keepQueue: the levels resting after the last refresh */
  resting?: RestingLevel[];
}

/**
 * A maker command's result, for a maker keeping its queue place: the id of an order that rests goes
 * to its level. The caller applies the step's commands in order and reports each submit's result.
 */
export type SubmitNote = (result: { ok: boolean; id?: OrderId; status?: string }) => void;

export function initMaker(nowMs: number): MakerState {
  return { nextMs: nowMs };
}

/** The lagging maker's trailing view moved toward `fairProbability` for the time since its last update. */
function updatedBelief(cfg: MakerConfig, state: MakerState, nowMs: number, fairProbability: number): MakerState {
  if (!(cfg.lagSeconds > 0)) return state;
  if (state.belief === undefined || state.beliefMs === undefined) return { ...state, belief: fairProbability, beliefMs: nowMs };
  const dt = Math.max(0, nowMs - state.beliefMs) / 1000;
  const a = 1 - Math.exp(-dt / cfg.lagSeconds);
  return { ...state, belief: state.belief + a * (fairProbability - state.belief), beliefMs: nowMs };
}

/** Shares for one level: the mean ± jitter, rounded to whole shares, at least one share. */
export function jitteredSize(mean: number, jitter: number, rng: Rng): number {
  const s = mean * (1 + jitter * (2 * rng.next() - 1));
  return Math.max(1_000_000, Math.round(s / 1_000_000) * 1_000_000);
}

export function stepMaker(
  cfg: MakerConfig,
  state: MakerState,
  rng: Rng,
  nowMs: number,
  view: AgentView,
  fairProbability: number,
  orders?: MakerOrders,
): AgentStep<MakerState> & { notes?: Map<EngineCommand, SubmitNote> } {
  state = updatedBelief(cfg, state, nowMs, fairProbability);
  if (nowMs < state.nextMs) return { state, commands: [], nextMs: state.nextMs };
  const tick = view.tick;
  const belief = state.belief === undefined ? fairProbability : cfg.lagShare * state.belief + (1 - cfg.lagShare) * fairProbability;
  const fair = (belief + cfg.fairNoise * gaussian(rng)) * 1_000_000;
  const nextMs = nowMs + cfg.refreshMs;
  if (cfg.keepQueue && orders) return keepQueueStep(cfg, { ...state, nextMs }, rng, nowMs, view, fair, orders);
  const commands: EngineCommand[] = [{ type: 'cancelAll', trader: cfg.trader, market: view.market, nowMs }];
  for (let i = 0; i < cfg.levels; i++) {
    const away = (cfg.halfSpreadTicks + i * cfg.stepTicks) * tick;
    const bid = snapPrice(fair - away, tick, 'down');
    const ask = snapPrice(fair + away, tick, 'up');
    const common = { market: view.market, trader: cfg.trader, side: 'buy' as const, nowMs };
    if (bid < ask) {
      commands.push({ type: 'submit', order: toSubmitOrder({ ...common, outcome: 1, price: bid, size: jitteredSize(cfg.size, cfg.sizeJitter, rng) }) });
      commands.push({
        type: 'submit',
        order: toSubmitOrder({ ...common, outcome: 0, price: 1_000_000 - ask, size: jitteredSize(cfg.size, cfg.sizeJitter, rng) }),
      });
    }
  }
  return { state: { ...state, nextMs }, commands, nextMs };
}

/**
 * The refresh of a maker keeping its queue place: the wanted ladder (the same levels and size draws as
 * a full re-post) against the levels resting. A resting level still wanted stays as it is, topped up
 * to its target by a new order when fills took part of it; a level no longer wanted is cancelled order
 * by order; a new level is posted. Cancels come first, so a new order never meets an old one.
 * Work per refresh: the maker's own orders only (a few per level), never the book.
 */
function keepQueueStep(
  cfg: MakerConfig,
  state: MakerState,
  rng: Rng,
  nowMs: number,
  view: AgentView,
  fair: number,
  orders: MakerOrders,
): AgentStep<MakerState> & { notes: Map<EngineCommand, SubmitNote> } {
  const tick = view.tick;
  const wanted: { outcome: 0 | 1; price: number; size: number }[] = [];
  for (let i = 0; i < cfg.levels; i++) {
    const away = (cfg.halfSpreadTicks + i * cfg.stepTicks) * tick;
    const bid = snapPrice(fair - away, tick, 'down');
    const ask = snapPrice(fair + away, tick, 'up');
    if (bid < ask) {
      wanted.push({ outcome: 1, price: bid, size: jitteredSize(cfg.size, cfg.sizeJitter, rng) });
      wanted.push({ outcome: 0, price: 1_000_000 - ask, size: jitteredSize(cfg.size, cfg.sizeJitter, rng) });
    }
  }
  const byKey = new Map<number, { level: RestingLevel; left: number }>();
  const cancels: EngineCommand[] = [];
  for (const level of state.resting ?? []) {
    let left = 0;
    const ids: OrderId[] = [];
    for (const id of level.ids) {
      const r = orders.remaining(id);
      if (r > 0) {
        ids.push(id);
        left += r;
      }
    }
    if (ids.length === 0) continue;
    const key = level.outcome * 2_000_000 + level.price;
    const kept = { ...level, ids };
    if (byKey.has(key) || !wanted.some((w) => w.outcome === level.outcome && w.price === level.price)) {
      for (const id of ids) cancels.push({ type: 'cancel', id, nowMs });
    } else byKey.set(key, { level: kept, left });
  }
  const resting: RestingLevel[] = [];
  const submits: EngineCommand[] = [];
  const notes = new Map<EngineCommand, SubmitNote>();
  const common = { market: view.market, trader: cfg.trader, side: 'buy' as const, nowMs };
  for (const w of wanted) {
    const key = w.outcome * 2_000_000 + w.price;
    const had = byKey.get(key);
    byKey.delete(key);
    const level: RestingLevel = had ? had.level : { outcome: w.outcome, price: w.price, target: w.size, ids: [] };
    resting.push(level);
    // whole shares below the target: what fills took (the top-up joins behind the others at the price)
    const missing = Math.floor((level.target - (had?.left ?? 0)) / 1_000_000) * 1_000_000;
    if (missing <= 0) continue;
    const cmd: EngineCommand = { type: 'submit', order: toSubmitOrder({ ...common, outcome: w.outcome, price: w.price, size: missing }) };
    submits.push(cmd);
    notes.set(cmd, (r) => {
      if (r.ok && r.id !== undefined && r.status === 'open') level.ids.push(r.id);
    });
  }
  const commands = [...cancels, ...submits];
  return { state: { ...state, resting }, commands, nextMs: state.nextMs, notes };
}
