/**
 * Operator control of the running bot (issue 16): clear the kill-switch latch, pause/resume a
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
 * as `ignored` and logged, never half-applied.
 */
import type { Logger } from '../core/logger.ts';
import type { BotConfig } from '../config/types.ts';
import type { BotLedger } from '../ledger/bot-ledger.ts';
import type { Bytes32 } from '../model/order.ts';
import type { KernelMarket, QuotingKernel } from '../runtime/quoting-kernel.ts';
import type { Controls, ControlResult } from './admin-server.ts';

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
}

const RESTART_ONLY = ['venue', 'orders', 'feeds', 'metrics', 'logging', 'wallet', 'ledger', 'admin'] as const;

export class BotControl implements Controls {
  private config: BotConfig;
  private readonly o: BotControlOptions;
  private readonly log: Logger;
  private reloading: Promise<ControlResult> | null = null;

  constructor(o: BotControlOptions) {
    this.o = o;
    this.config = o.config;
    this.log = o.logger.child({ component: 'control' });
  }

  get currentConfig(): BotConfig {
    return this.config;
  }

  private record(action: string, market: string | null, reason: string | null, result: string): void {
    this.log.warn({ action, market, reason, result }, 'operator action');
    try {
      this.o.ledger?.operatorAction(action, market, reason, result);
    } catch (e) {
      this.log.error({ err: (e as Error).message }, 'recording an operator action failed');
    }
  }

  private market(m: string): Bytes32 | null {
    const k = m.toLowerCase();
    return this.o.kernel.marketIds().find((id) => id.toLowerCase() === k) ?? null;
  }

  status(): Record<string, unknown> {
    const k = this.o.kernel;
    const latch = this.o.ledger?.latch ?? null;
    return {
      latched: k.killed !== null,
      killSwitch: k.killed ? { reason: k.killed, detail: latch?.detail ?? null, since: latch ? new Date(latch.at).toISOString() : null } : null,
      halted: k.halted,
      paused: k.pausedList(),
      markets: k.marketIds().length,
      retiring: k.retiring(),
      ...(this.o.rotation ? { rotation: this.o.rotation() } : {}),
    };
  }

  clearKill(reason: string): ControlResult {
    const was = this.o.ledger ? this.o.ledger.clearLatch(reason, 'admin') : null;
    const kernelWas = this.o.kernel.killed;
    const resumed = this.o.kernel.clearKill();
    if (resumed) this.o.onKillCleared?.();
    const cleared = was !== null || resumed;
    this.log.warn({ reason, was: was?.reason ?? kernelWas, resumed }, cleared ? 'kill switch cleared by the operator' : 'clear-kill: no kill switch was latched');
    if (!this.o.ledger) this.record('clear-kill', null, reason, cleared ? `cleared ${kernelWas}` : 'no latch was set');
    return { status: 200, body: { cleared, was: was?.reason ?? kernelWas ?? null, quoting: resumed } };
  }

  pause(market: string | null, reason: string | null): ControlResult {
    if (market === null) return this.halt(reason);
    const id = this.market(market);
    if (!id) return { status: 404, body: { error: `market ${market} is not quoted by this bot` } };
    this.o.kernel.pause(id);
    this.record('pause', id, reason, 'paused');
    return { status: 200, body: { paused: id } };
  }

  resume(market: string | null, reason: string | null): ControlResult {
    if (market === null) {
      this.o.kernel.resume(null);
      this.record('resume', null, reason, 'halt and every pause lifted');
      return { status: 200, body: { resumed: 'all' } };
    }
    const id = this.market(market);
    if (!id) return { status: 404, body: { error: `market ${market} is not quoted by this bot` } };
    this.o.kernel.resume(id);
    this.record('resume', id, reason, this.o.kernel.halted ? 'resumed (the global halt still stands)' : 'resumed');
    return { status: 200, body: { resumed: id, halted: this.o.kernel.halted } };
  }

  halt(reason: string | null): ControlResult {
    this.o.kernel.pause(null);
    this.o.ledger?.riskEvent('halt', 'OPERATOR', reason);
    this.record('halt', null, reason, 'every quote pulled until resume');
    return { status: 200, body: { halted: true } };
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
    const ignored = RESTART_ONLY.filter((k) => JSON.stringify(next[k], bigintSafe) !== JSON.stringify(this.config[k], bigintSafe));
    // the new config is current before the markets move: a rotation refresh from here selects with it
    this.config = next;
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
