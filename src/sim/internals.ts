/**
 * The exchange's internal services that its own route modules need beyond ExchangeState (order
 * entry, book streams, market statistics, faults), looked up by state so handlers keep the plain
 * `(ctx) → reply` shape.
 */
import type { BookStreamHub } from './book-stream.ts';
import type { ExchangeState } from './context.ts';
import type { EngineEventHandler } from './engine-events.ts';
import type { FaultInjector } from './faults.ts';
import { HttpError } from './http-errors.ts';
import type { MarketStats } from './market-stats.ts';
import type { OrderService } from './order-service.ts';

export interface ExchangeInternals {
  orders: OrderService;
  hub: BookStreamHub;
  stats: MarketStats;
  faults: FaultInjector;
  events: EngineEventHandler;
}

const table = new WeakMap<ExchangeState, ExchangeInternals>();

export function setInternals(state: ExchangeState, internals: ExchangeInternals): void {
  table.set(state, internals);
}

export function internalsOf(state: ExchangeState): ExchangeInternals {
  const i = table.get(state);
  if (!i) throw new HttpError(500, 'INTERNAL_ERROR', 'exchange internals missing');
  return i;
}
