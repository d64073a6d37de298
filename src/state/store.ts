/**
 * The state store (docs/architecture.md#the-pipeline): reduces typed events into one immutable snapshot per change and
 * only then notifies, so every listener sees the state that already includes the event.
 *
 * Entry points:
 *   const store = new StateStore();
 *   store.dispatch(event) / store.dispatchAll(events)   // reduce, then notify once
 *   store.state                                          // the current StoreState (never mutated)
 *   store.changes$.subscribe(({ state, events }) => …)   // RxJS, at the stream boundary only
 *   selectMarketView(store.state, marketId, clock.now()) // src/state/market-view.ts
 * Listeners must not throw (RxJS would rethrow asynchronously); they may dispatch, which nests.
 */
import { Subject, type Observable } from 'rxjs';
import type { StateEvent } from './events.ts';
import { emptyState, type StoreState } from './market-state.ts';
import { DEFAULT_LIMITS, reduce, reduceAll, type ReduceLimits } from './reduce.ts';

export interface StoreChange {
  readonly state: StoreState;
  readonly events: readonly StateEvent[];
}

export class StateStore {
  private current: StoreState;
  private readonly subject = new Subject<StoreChange>();
  readonly changes$: Observable<StoreChange> = this.subject.asObservable();

  constructor(
    private readonly limits: ReduceLimits = DEFAULT_LIMITS,
    initial: StoreState = emptyState(),
  ) {
    this.current = initial;
  }

  get state(): StoreState {
    return this.current;
  }

  dispatch(event: StateEvent): StoreState {
    this.current = reduce(this.current, event, this.limits);
    // nobody listening (a backtest): skip building the notification
    if (this.subject.observed) this.subject.next({ state: this.current, events: [event] });
    return this.current;
  }

  /**
   * Reduce events together and notify once with the final state: the state `dispatch` would reach
   * event by event, with one copy of a market for a run of its own-order events (reduce.ts reduceAll).
   */
  dispatchAll(events: readonly StateEvent[]): StoreState {
    if (events.length === 0) return this.current;
    const s = reduceAll(this.current, events, this.limits);
    this.current = s;
    if (this.subject.observed) this.subject.next({ state: s, events });
    return s;
  }

  complete(): void {
    this.subject.complete();
  }
}
