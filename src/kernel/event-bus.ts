/**
 * A small ordered event bus: the one place where the events of the trading core fan out, in an order
 * that is written down rather than spread over hand-written callbacks (docs/architecture.md#one-assembly).
 *
 *   const bus = new EventBus<StateEvent>();
 *   bus.on('record', (e) => ledger.onEvent(e));   // before the state has the event (write-ahead)
 *   bus.on('react', (e) => claims.onEvent(e));    // after the state has it
 *   bus.publish(e, (x) => kernel.onEvent(x));     // record listeners, the state step, react listeners
 *
 * Within a stage, listeners run in the order they were added. A listener that throws stops the
 * event there (the caller's guard logs it), as a hand-written fan-out did.
 */
export type BusStage = 'record' | 'react';
export type BusListener<E> = (e: E) => void;

export class EventBus<E> {
  private readonly recorders: BusListener<E>[] = [];
  private readonly reactors: BusListener<E>[] = [];

  /** Add a listener to a stage (after those already there); returns its removal. */
  on(stage: BusStage, listener: BusListener<E>): () => void {
    const list = stage === 'record' ? this.recorders : this.reactors;
    list.push(listener);
    return () => {
      const i = list.indexOf(listener);
      if (i >= 0) list.splice(i, 1);
    };
  }

  /** One event: every 'record' listener, then `apply` (the state step), then every 'react' listener. */
  publish(e: E, apply: (e: E) => void): void {
    const r = this.recorders;
    for (let i = 0; i < r.length; i++) r[i]!(e);
    apply(e);
    const t = this.reactors;
    for (let i = 0; i < t.length; i++) t[i]!(e);
  }

  /** A batch applied together: each event recorded, the batch applied once, then each event told. */
  publishAll(es: readonly E[], apply: (es: readonly E[]) => void): void {
    const r = this.recorders;
    if (r.length > 0) for (const e of es) for (let i = 0; i < r.length; i++) r[i]!(e);
    apply(es);
    const t = this.reactors;
    if (t.length > 0) for (const e of es) for (let i = 0; i < t.length; i++) t[i]!(e);
  }

  /** Tell the 'react' listeners of an event whose state step ran elsewhere. */
  told(e: E): void {
    const t = this.reactors;
    for (let i = 0; i < t.length; i++) t[i]!(e);
  }
}
