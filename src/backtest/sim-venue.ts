/**
 * The sim venue: the backtest's VenuePort (src/model/venue.ts). A call sent at virtual time t reaches
 * the exchange model at t + entry latency (orders start resting, cancels land, in the order sent) and
 * its answer reaches the bot at that time + response latency; both are timers on the virtual clock.
 * Orders arrive unsigned with their nonce: nothing is signed or verified in a backtest. The exchange
 * model holds them in the matching engine, so a refusal carries the engine's code (e.g.
 * UNDER_COLLATERALIZED when the bot cannot afford the order) as a non-retryable create failure.
 *
 * Fill reports reach the bot `response` ms after the fill (like the activity feed of a live venue),
 * through `onFillReport`; the replay loop turns them into OrderFilled events for the kernel.
 */
import type { VirtualClock } from './virtual-clock.ts';
import type { Address, Bytes32, VenueOrder } from '../model/order.ts';
import type { BatchResult, CancelOutcome, CreateOutcome, PlannedOrder, VenueFailure, VenuePort } from '../model/venue.ts';
import type { LatencyModel } from './latency-model.ts';
import type { SimExchange } from './sim-exchange.ts';

/** A fixed, obviously fake trader address: the sim venue has no wallet. */
export const SIM_TRADER: Address = '0x00000000000000000000000000000000000b7e57';

export interface SimVenueOptions {
  readonly clock: VirtualClock;
  readonly exchange: SimExchange;
  readonly latency: LatencyModel;
  readonly batchLimit: number;
  /** called when an answer is delivered (the replay loop then lets the bot's promises run) */
  readonly onDelivered: () => void;
}

export class SimVenue implements VenuePort {
  readonly trader: Address = SIM_TRADER;
  readonly batchLimit: number;
  calls = 0;
  /**
   * Set when a timer that ran was a call reaching the exchange (the replay loop clears it before each
   * timer): that timer resolves no promise (the answer is a timer of its own), unless the call threw.
   */
  entryRan = false;
  /** due times of the calls on their way to the exchange (a few at most): nextEntryDue */
  private readonly entryDue: number[] = [];

  constructor(private readonly opts: SimVenueOptions) {
    this.batchLimit = opts.batchLimit;
  }

  /** Run `act` at the exchange after the entry latency, deliver its result after the response latency. */
  private roundTrip<T>(act: (at: number) => T): Promise<T> {
    this.calls++;
    const { clock, latency } = this.opts;
    return new Promise<T>((resolve, reject) => {
      const wait = latency.entry();
      const due = clock.now() + Math.max(0, wait);
      this.entryDue.push(due);
      clock.schedule(() => {
        dropOne(this.entryDue, due);
        let result: T;
        try {
          result = act(clock.now());
        } catch (err) {
          reject(err);
          return;
        }
        this.entryRan = true;
        clock.schedule(() => {
          resolve(result);
          this.opts.onDelivered();
        }, latency.response());
      }, wait);
    });
  }

  /**
   * When the earliest call on its way reaches the exchange (Infinity when none): until then only the
   * recorded rows change the exchange, and a call sent from now on reaches it no sooner than
   * `latency.entryMin` from now (the replay loop's one-pass exchange rows stop before either).
   */
  nextEntryDue(): number {
    const d = this.entryDue;
    if (d.length === 0) return Infinity;
    let m = d[0]!;
    for (let k = 1; k < d.length; k++) if (d[k]! < m) m = d[k]!;
    return m;
  }

  batch(creates: PlannedOrder[], cancels: Bytes32[]): Promise<BatchResult> {
    return this.roundTrip((at) => {
      // cancels first, as the venue's bulk endpoint applies them (frees a slot before its replacement)
      const c = cancels.map((n) => this.cancelAt(n, at));
      const o = creates.map((p) => this.createAt(p, at));
      return { creates: o, cancels: c };
    });
  }

  cancelReplace(cancelNonce: Bytes32, create: PlannedOrder): Promise<{ cancel: CancelOutcome; create: CreateOutcome }> {
    return this.roundTrip((at) => ({ cancel: this.cancelAt(cancelNonce, at), create: this.createAt(create, at) }));
  }

  openOrders(marketId?: Bytes32): Promise<VenueOrder[]> {
    return this.roundTrip((at) => {
      const x = this.opts.exchange;
      x.expireUntil(at);
      const m = marketId === undefined ? undefined : x.marketOf(marketId);
      if (m === -1) return [];
      return x.openOrders(m).map((o) => x.toVenueOrder(o, this.trader));
    });
  }

  private createAt(p: PlannedOrder, at: number): CreateOutcome {
    const r = this.opts.exchange.place(p, at);
    if (r.ok) return { ok: true, nonce: p.nonce, order: null, duplicate: false };
    return { ok: false, nonce: p.nonce, code: simFailure(r.code), message: r.message, retryable: false, venueCode: r.code };
  }

  private cancelAt(nonce: Bytes32, at: number): CancelOutcome {
    const r = this.opts.exchange.cancel(nonce, at);
    if (r.ok) return { ok: true, nonce, alreadyCancelled: r.alreadyCancelled };
    return { ok: false, nonce, code: simFailure(r.code), message: r.message, retryable: false };
  }
}

/**
 * Remove one `due` from the calls' due times, the last taking its place: their order is not read
 * (nextEntryDue takes the least). A splice made a one-element array of what it removed per venue call.
 */
function dropOne(d: number[], due: number): void {
  const i = d.indexOf(due);
  if (i < 0) return;
  const last = d.pop()!;
  if (i < d.length) d[i] = last;
}

/** A refusal of the exchange model in the failure vocabulary (its own code goes along as venueCode). */
function simFailure(code: string): VenueFailure {
  return code === 'duplicate' || code === 'not-found' ? code : 'bad-request';
}
