/**
 * Operator control of the running bot: clear the kill-switch latch, pause/resume a
 * market, halt everything, reload the config — without a restart. The admin endpoint
 * (admin-server.ts) and SIGHUP drive it; every action is logged and recorded in the ledger.
 *
 * Reload: the config file is loaded and validated again; a bad file is refused with the loader's
 * precise message and the running config stays. Otherwise the markets are selected again and handed
 * to the market rotation (src/runtime/rotation, `applyMarkets`), the same start/retire path as a
 * periodic refresh: changed strategy parameters and risk limits apply from the next tick (quotes
 * that still pass are kept, not pulled), added markets start (feeds, reconcile, then quotes),
 * removed markets retire (quotes pulled, cancels confirmed by the venue, book stream closed, state
 * released); a market still retiring from before is started once its retirement is done. Sections that only a
 * restart can change (venue, orders, feeds, metrics, logging, wallet, ledger, admin) are reported
 * as `ignored` and logged, never half-applied; they are compared with the values the process started
 * with, so every reload keeps reporting them until a restart applies them, and the running config
 * keeps the started values (`admin.port` stays the port the bot is bound to, as `identity` says).
 *
 * a halt or pause is written to the ledger before it takes effect and outlives the
 * process: a restarted bot applies what the ledger holds (`restore`) before its first quote, and
 * says so in its log, `/readyz`, `/metrics` and `status`, until `resume`. `status` carries the
 * bot's identity (identity.ts) so `bookmaker ctl` acts only on the bot of its config, and the
 * books' money figures and the kill switch's (status-books.ts: the functions /metrics reads).
 */
import type { Logger } from '../core/logger.ts';
import type { BotConfig } from '../config/types.ts';
import type { BotLedger } from '../ledger/bot-ledger.ts';
import type { Bytes32 } from '../model/order.ts';
import type { KernelMarket, QuotingKernel } from '../kernel/quoting-kernel.ts';
import type { OperatorHold, OperatorHolds } from '../ledger/ledger.ts';
import type { Controls, ControlResult } from './admin-server.ts';
import type { BotIdentity } from './identity.ts';
import { killSwitchFigures, statusBooks } from './status-books.ts';
import { haltText } from '../ledger/held-state.ts';

export interface BotControlOptions {
  readonly kernel: QuotingKernel;
  readonly ledger: BotLedger | null;
  readonly logger: Logger;
  readonly config: BotConfig;
  /** load and validate the config file again (throws a ConfigError on a bad file) */
  readonly loadConfig: (file: string) => Promise<BotConfig>;
  /** the markets a config selects, resolved at the venue */
  readonly selectMarkets: (cfg: BotConfig) => Promise<KernelMarket[]>;
  /**
   * make these the quoted markets (the rotation's start/retire path with reason `reload`); resolves
   * once added markets started; `changed` = kept markets whose settings changed
   */
  readonly applyMarkets: (markets: readonly KernelMarket[]) => Promise<{ started: Bytes32[]; retired: Bytes32[]; waiting: Bytes32[]; changed: Bytes32[] }>;
  /** market rotation's figures for `status` (active, retiring, started and retired so far) */
  readonly rotation?: () => Record<string, unknown>;
  /** the kill switch was cleared and quoting resumed (the runtime's health model follows) */
  readonly onKillCleared?: () => void;
  /** a market's slug when the venue gave one (status `slugs`: `bookmaker ctl pause SLUG` resolves by it) */
  readonly slugOf?: (id: Bytes32) => string | undefined;
  /** which bot this is (GET /admin/status `identity`; bookmaker ctl checks it) */
  readonly identity?: () => BotIdentity;
  /** a reload applied this config (the identity's config hash follows) */
  readonly onReloaded?: (next: BotConfig) => void;
}

/** A halt or pause in force, as status, /readyz and the log show it. */
export interface HoldView {
  readonly reason: string | null;
  readonly since: string;
  readonly source: string;
  /** a hold from an earlier run: the record a start read it from ('ledger', 'latch file', or both) */
  readonly from?: string;
}

const view = (h: OperatorHold): HoldView => ({
  reason: h.reason,
  since: new Date(h.at).toISOString(),
  source: h.source,
  ...(h.from !== undefined ? { from: h.from } : {}),
});

const RESTART_ONLY = ['venue', 'orders', 'feeds', 'metrics', 'logging', 'wallet', 'ledger', 'admin'] as const;

export class BotControl implements Controls {
  private config: BotConfig;
  private readonly o: BotControlOptions;
  private readonly log: Logger;
  private reloading: Promise<ControlResult> | null = null;
  /** the config the process started with: restart-only sections are compared with it */
  private readonly started: BotConfig;
  /** the halt and pauses in force (lower-case market ids), with their reasons */
  private haltHold: OperatorHold | null = null;
  private readonly pauseHolds = new Map<Bytes32, OperatorHold>();

  constructor(o: BotControlOptions) {
    this.o = o;
    this.config = o.config;
    this.started = o.config;
    this.log = o.logger.child({ component: 'control' });
  }

  get currentConfig(): BotConfig {
    return this.config;
  }

  /** Recorded in the ledger (durable before the action takes effect); false when it could not be. */
  private record(action: string, market: string | null, reason: string | null, result: string, source = 'admin'): boolean {
    this.log.warn({ action, market, reason, result, ...(source !== 'admin' ? { source } : {}) }, 'operator action');
    try {
      this.o.ledger?.operatorAction(action, market, reason, result, source);
    } catch (e) {
      this.log.error({ err: (e as Error).message, action }, 'recording an operator action failed: it holds in this process only, not across a restart');
      return false;
    }
    // a write that "succeeds" into a ledger file deleted or replaced under the process (or one whose
    // writes fail) is not durable: no later start reads it (Ledger.problem)
    const problem = this.o.ledger?.ledger.problem() ?? null;
    if (problem) {
      this.log.error(
        { action, problem: problem.reason },
        'operator action not durable: the ledger cannot be written; it holds in this process only, not across a restart',
      );
      return false;
    }
    return true;
  }

  /**
   * Start-up: the halt and pauses an earlier run left in the ledger hold again before the first
   * quote. A pause of a market this run does not quote stays in the ledger (and in `status`).
   */
  restore(holds: OperatorHolds): void {
    const k = this.o.kernel;
    if (holds.halt) {
      this.haltHold = holds.halt;
      k.pause(null);
      // the halt's own source and reason (another trader on the wallet, the operator, a damaged latch file …)
      this.log.warn(
        { reason: holds.halt.reason, since: new Date(holds.halt.at).toISOString(), source: holds.halt.source, from: holds.halt.from },
        `held from an earlier run: ${haltText(holds.halt)}`,
      );
    }
    for (const [id, h] of holds.pauses) {
      this.pauseHolds.set(id, h);
      const market = this.market(id);
      if (market) k.pause(market);
      this.log.warn(
        { market: id, reason: h.reason, since: new Date(h.at).toISOString(), quoted: market !== null, from: h.from },
        market
          ? 'market paused by an operator in an earlier run: not quoting it until `bookmaker ctl resume MARKET`'
          : 'a market paused in an earlier run is not quoted by this run; its pause stays in the ledger',
      );
    }
  }

  /** The operator halt in force (null when none). */
  haltHeld(): HoldView | null {
    return this.haltHold ? view(this.haltHold) : null;
  }

  /** The halt that holds the kernel, as haltText names it (one the kernel holds without a record: the operator's). */
  haltNow(): OperatorHold | null {
    if (this.haltHold) return this.haltHold;
    return this.o.kernel.halted ? { reason: null, at: 0, source: 'admin' } : null;
  }

  /** Is this market under an operator's pause (quoted now or not)? A market rotation restarts starts paused. */
  isHeldPause(marketId: Bytes32): boolean {
    return this.pauseHolds.has(marketId);
  }

  /** The pauses in force that hold a quoted market (id → its pause). */
  pauses(): { market: string; reason: string | null; since: string; source: string }[] {
    const quoted = new Set(this.o.kernel.pausedList());
    return [...this.pauseHolds].filter(([id]) => quoted.has(id)).map(([market, h]) => ({ market, ...view(h) }));
  }

  /**
   * What /readyz says about the operator's holds: one reason per hold in force (none when the bot
   * quotes freely). A halted or paused bot is not ready: it does not quote what it should.
   */
  readinessReasons(): string[] {
    const out: string[] = [];
    const h = this.haltNow();
    if (h) out.push(haltText(h));
    for (const p of this.pauses())
      out.push(`market ${p.market} paused by the operator since ${p.since}${p.reason ? `: ${p.reason}` : ''} (bookmaker ctl resume ${p.market} lifts it)`);
    return out;
  }

  private market(m: Bytes32): Bytes32 | null {
    return this.o.kernel.hasMarket(m) ? m : null;
  }

  status(): Record<string, unknown> {
    const k = this.o.kernel;
    const latch = this.o.ledger?.latch ?? null;
    return {
      ...(this.o.identity ? { identity: this.o.identity() } : {}),
      latched: k.killed !== null,
      killSwitch: k.killed
        ? { reason: latch?.reason ?? k.killed, detail: latch?.detail ?? null, since: latch ? new Date(latch.at).toISOString() : null }
        : null,
      halted: k.halted,
      halt: k.halted ? (this.haltHeld() ?? { reason: null, since: null, source: 'admin' }) : null,
      // the holds the bot placed on itself (e.g. `ledger`: the books cannot be written): no quote while any stands
      holds: [...k.held].map(([hold, reason]) => ({ hold, reason })),
      paused: k.pausedList(),
      pauses: this.pauses(),
      // pauses held in the ledger for markets this run does not quote now (they apply if it does)
      heldPauses: [...this.pauseHolds].filter(([id]) => !k.pausedList().includes(id)).map(([market, h]) => ({ market, ...view(h) })),
      markets: k.marketIds().length,
      // the quoted markets' slugs, as the logs and /metrics print them: `bookmaker ctl pause SLUG` reads them
      slugs: this.slugs(),
      retiring: k.retiring(),
      ...(this.o.rotation ? { rotation: this.o.rotation() } : {}),
      // the money figures, read from the books and the kill switch as /metrics reads them (status-books.ts)
      killSwitchFigures: killSwitchFigures(k.accountRisk, k.account.pnl(), Date.now()),
      books: statusBooks(k.account, k.marketIds()),
    };
  }

  private slugs(): Record<string, string> {
    const out: Record<string, string> = {};
    const slugOf = this.o.slugOf;
    if (slugOf) for (const id of this.o.kernel.marketIds()) if (slugOf(id)) out[id] = slugOf(id)!;
    return out;
  }

  clearKill(reason: string): ControlResult {
    const was = this.o.ledger ? this.o.ledger.clearLatch(reason, 'admin') : null;
    const kernelWas = this.o.kernel.killed;
    const resumed = this.o.kernel.clearKill();
    if (resumed) this.o.onKillCleared?.();
    const cleared = was !== null || resumed;
    this.log.warn(
      { reason, was: was?.reason ?? kernelWas, resumed },
      cleared ? 'kill switch cleared by the operator' : 'clear-kill: no kill switch was latched',
    );
    if (!this.o.ledger) this.record('clear-kill', null, reason, cleared ? `cleared ${kernelWas}` : 'no latch was set');
    return { status: 200, body: { cleared, was: was?.reason ?? kernelWas ?? null, quoting: resumed } };
  }

  pause(market: Bytes32 | null, reason: string | null): ControlResult {
    if (market === null) return this.halt(reason);
    const id = this.market(market);
    if (!id) return { status: 404, body: { error: `market ${market} is not quoted by this bot` } };
    // durable before it takes effect: a crash right after still finds it paused
    const persisted = this.record('pause', id, reason, 'paused');
    this.pauseHolds.set(id, { reason, at: Date.now(), source: 'admin' });
    this.o.kernel.pause(id);
    return { status: 200, body: { paused: id, persisted } };
  }

  resume(market: Bytes32 | null, reason: string | null): ControlResult {
    if (market === null) {
      const persisted = this.record('resume', null, reason, 'halt and every pause lifted');
      this.haltHold = null;
      this.pauseHolds.clear();
      this.o.kernel.resume(null);
      return { status: 200, body: { resumed: 'all', persisted } };
    }
    // a pause held in the ledger for a market this run does not quote can be lifted too
    const id = this.market(market) ?? (this.pauseHolds.has(market) ? market : null);
    if (!id) return { status: 404, body: { error: `market ${market} is not quoted by this bot` } };
    const persisted = this.record('resume', id, reason, this.o.kernel.halted ? 'resumed (the global halt still stands)' : 'resumed');
    this.pauseHolds.delete(id);
    this.o.kernel.resume(id);
    return { status: 200, body: { resumed: id, halted: this.o.kernel.halted, persisted } };
  }

  /**
   * Halt: every quote pulled until `resume`. `source` is who halted: 'admin' (the endpoint), or the bot
   * itself ('wallet': another trader on its wallet, src/runtime/phases/wallet.ts); either is recorded
   * and held across restarts the same way.
   */
  halt(reason: string | null, source = 'admin'): ControlResult {
    // durable before it takes effect; a halt that cannot be written still halts this process
    this.o.ledger?.riskEvent('halt', source === 'admin' ? 'OPERATOR' : source.toUpperCase(), reason);
    const persisted = this.record('halt', null, reason, 'every quote pulled until resume', source);
    this.haltHold = { reason, at: Date.now(), source };
    this.o.kernel.pause(null);
    return { status: 200, body: { halted: true, persisted } };
  }

  /** One reload at a time; a second request while one runs gets that one's answer. */
  reload(reason: string | null): Promise<ControlResult> {
    this.reloading ??= this.doReload(reason).finally(() => {
      this.reloading = null;
    });
    return this.reloading;
  }

  private async doReload(reason: string | null): Promise<ControlResult> {
    const file = this.config.file;
    if (!file) return { status: 409, body: { error: 'the running config did not come from a file: nothing to reload' } };
    let next: BotConfig;
    let markets: KernelMarket[];
    try {
      next = await this.o.loadConfig(file);
      markets = await this.o.selectMarkets(next);
    } catch (e) {
      const msg = (e as Error).message;
      this.log.error({ err: msg }, 'reload refused: the running config stays');
      this.record('reload', null, reason, `refused: ${msg}`);
      return { status: 400, body: { error: msg, kept: 'the running config' } };
    }
    // compared with what the process started with: a change stays reported until a restart applies it
    const ignored = RESTART_ONLY.filter((k) => JSON.stringify(next[k], bigintSafe) !== JSON.stringify(this.started[k], bigintSafe));
    // the new config is current before the markets move: a rotation refresh from here selects with it;
    // the restart-only sections keep the running values (admin.port is the port bound)
    const kept: Partial<Record<(typeof RESTART_ONLY)[number], unknown>> = {};
    for (const k of RESTART_ONLY) kept[k] = this.started[k];
    this.config = { ...next, ...kept } as BotConfig;
    this.o.onReloaded?.(next);
    const u = await this.o.applyMarkets(markets);
    const result = { added: u.started, removed: u.retired, changed: u.changed, ignored, ...(u.waiting.length ? { waiting: u.waiting } : {}) };
    if (ignored.length > 0) this.log.warn({ ignored }, 'reload: these sections change only with a restart; the running values stay');
    this.record('reload', null, reason, JSON.stringify({ added: u.started.length, removed: u.retired.length, changed: u.changed.length, ignored }));
    return { status: 200, body: result };
  }
}

function bigintSafe(_k: string, v: unknown): unknown {
  return typeof v === 'bigint' ? v.toString() : v;
}
