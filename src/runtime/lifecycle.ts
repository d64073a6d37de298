/**
 * The live start-up as named phases with one lifecycle (src/runtime/bot.ts): each phase adds the steps
 * that undo what it started, and teardown runs them in reverse, last added first, whether the bot stops
 * after running or a start-up fails halfway. A failed start-up says in which phase it failed.
 *
 *   const life = new Lifecycle();
 *   life.enter('ledger');                 // what is added from here on belongs to the ledger phase
 *   life.add(() => ledger.close());
 *   await life.teardown(log);             // every step once, in reverse; a failing step is logged, the rest run
 */
import type { Logger } from '../core/logger.ts';

/** The phases of the live start-up, in order. */
export type StartupPhase =
  | 'admin'
  | 'venue'
  | 'select'
  | 'migration'
  | 'ledger'
  | 'core'
  | 'feeds'
  | 'holds'
  | 'endpoints'
  | 'rotation'
  | 'control'
  | 'reconcile'
  | 'running';

type Undo = () => Promise<void> | void;

export class Lifecycle {
  private current: StartupPhase = 'admin';
  private readonly steps: { readonly phase: StartupPhase; readonly undo: Undo }[] = [];

  /** The phase now starting: undo steps added from here on belong to it. */
  enter(phase: StartupPhase): void {
    this.current = phase;
  }

  /** The phase the start-up is in (or reached). */
  get phase(): StartupPhase {
    return this.current;
  }

  /** An undo step of the current phase. */
  add(undo: Undo): void {
    this.steps.push({ phase: this.current, undo });
  }

  /**
   * Run every undo step once, last added first. A step that throws is logged with its phase (when a
   * logger is given) and the others still run; without a logger the first failure is thrown once all ran.
   */
  async teardown(log?: Logger): Promise<void> {
    let first: unknown = null;
    while (this.steps.length > 0) {
      const s = this.steps.pop()!;
      try {
        await s.undo();
      } catch (e) {
        if (log) log.warn({ err: (e as Error).message, phase: s.phase }, 'cleanup step failed');
        else first ??= e;
      }
    }
    if (first !== null) throw first;
  }
}
