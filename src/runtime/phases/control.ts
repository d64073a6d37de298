/**
 * The control phase of the live start-up (src/runtime/bot.ts): the periodic marks, operator control
 * (`bookmaker ctl`, SIGHUP reloads) restored from the ledger's holds, the admin endpoint bound at the
 * start attached to it (a halt sent while starting acts before the first quote), and the last steps of
 * a stop: the ledger's final sweep after the last cancel, and the cancel-all of a stop requested during
 * the rest of start-up.
 */
import type { BotConfig } from '../../config/types.ts';
import { loadConfig } from '../../config/load-config.ts';
import { writeAdminState } from '../../control/admin-state.ts';
import { BotControl } from '../../control/bot-control.ts';
import { registerControlMetrics } from '../../control/control-metrics.ts';
import { canonicalPath, type BotIdentity } from '../../control/identity.ts';
import { configHash } from '../../ledger/bot-ledger.ts';
import type { VenueOrderStatus } from '../../ledger/catch-up.ts';
import { closeAtStop } from '../closed-at-stop.ts';
import type { OperatorHolds as LedgerHolds } from '../../ledger/ledger.ts';
import { withShard, withShardScope } from '../../selection/shard.ts';
import { mustAddress } from '../../model/ids.ts';
import type { Address } from '../../model/order.ts';
import type { CorePhase } from './core.ts';
import type { LedgerPhase } from './ledger.ts';
import type { RotationPhase } from './rotation.ts';
import type { SelectPhase } from './select.ts';
import type { StartContext } from './start-context.ts';
import { registerSiblingMetrics, siblingHandler } from './siblings.ts';
import { watchWallet } from './wallet.ts';
import type { VenuePhase } from './venue.ts';

export interface ControlPhase {
  readonly control: BotControl;
  /** a sharded bot's watch of the other shards' orders in its markets (phases/siblings.ts), else null */
  readonly siblings: ReturnType<typeof siblingHandler> | null;
  /** set once start-up is over: a stop from then on is not a stop during start-up */
  started(): void;
  /**
   * the start was refused for another trader on the wallet (exit 7), before this run placed an order: the
   * stop then sweeps no fills into the ledger (the orders it would read are the other trader's)
   */
  refusedForWallet(): void;
}

/** Who this bot is, for `ctl` to check before it acts (GET /admin/status). */
export function botIdentity(cfg: BotConfig, trader: Address, chain: string, ledgerFile: string, adminPort: number, startedAt: number): BotIdentity {
  return {
    pid: process.pid,
    account: mustAddress(trader, 'trader'), // the identity ctl compares: the normal form (src/model/ids.ts)
    chain,
    configFile: cfg.file ? canonicalPath(cfg.file) : '',
    configHash: configHash(cfg),
    ledger: canonicalPath(ledgerFile),
    adminPort,
    startedAt: new Date(startedAt).toISOString(),
  };
}

export function controlPhase(
  c: StartContext,
  { client }: VenuePhase,
  s: SelectPhase,
  { bookLedger, accountBooks }: LedgerPhase,
  cp: CorePhase,
  holds: LedgerHolds,
  { rotation: rot }: RotationPhase,
): ControlPhase {
  const { cfg, log, life, early, signal } = c;
  const { kernel: k, orderManager: om } = cp.core;
  // with every mark, the account's pooled toxicity too: a restart keeps the guard's evidence
  life.add(
    bookLedger.startMarks(
      accountBooks,
      () => k.riskFigures(),
      cfg.ledger.markMs,
      () => cp.core.store.state.toxicityPool,
    ),
  );
  // bound at the start of startBot (a port held by another process stopped the start-up there)
  let identity = botIdentity(cfg, cp.venue.trader, c.v.chain.name, bookLedger.ledger.path, early?.endpoint.port ?? 0, cp.startedAt);
  const control = new BotControl({
    kernel: k,
    ledger: bookLedger,
    logger: c.o.logger,
    config: cfg,
    // the running shard (flag, environment or file) and its reconcile scope stay across reloads
    loadConfig: async (file) => withShardScope(withShard(await loadConfig(file, { env: c.o.env ?? process.env }), cfg.selection.shard)),
    selectMarkets: (next) => s.select(next, new Set<string>(rot.activeIds())),
    // a reload's markets go through the rotation: added ones start, removed ones retire (books closed)
    applyMarkets: (next) => rot.apply(next, 'reload'),
    rotation: () => {
      const r = rot.summary();
      return {
        active: r.active,
        retiring: rot.retiringDetails(),
        started: r.started,
        retired: r.retired,
        refreshes: r.refreshes,
        refreshFailures: r.refreshFailures,
        lastRefreshError: r.lastRefreshError,
      };
    },
    onKillCleared: () => cp.healthModel.resumeAfterHalt(),
    identity: () => identity,
    slugOf: (id) => cp.core.store.state.markets.get(id)?.slug,
    onReloaded: (next) => (identity = { ...identity, configHash: configHash(next) }),
  });
  control.restore(holds);
  cp.operator.use(control);
  registerControlMetrics(c.metrics.registry, k, control, undefined, early ? () => early.endpoint.refused() : undefined);
  // another trader appearing on this wallet halts the bot through the control (phases/wallet.ts)
  watchWallet(c, cp.wallet, control, c.metrics.registry, bookLedger.ledger.nonceTag());
  // a sibling shard's orders in this shard's markets (a re-split): the lower index keeps the market (phases/siblings.ts)
  const shard = cfg.selection.shard;
  let siblings: ControlPhase['siblings'] = null;
  if (cp.wallet && shard) {
    const s = (siblings = siblingHandler(c, shard.index, {
      pause: (m) => k.pause(m),
      resume: (m) => k.resume(m),
      isPaused: (m) => k.isPaused(m),
      isHeldPause: (m) => control.isHeldPause(m),
    }));
    cp.wallet.bindSiblings?.(s.onSiblings);
    registerSiblingMetrics(c.metrics.registry, () => s.contested.size);
  }
  if (early) {
    early.controls.attach(control);
    // a halt sent while starting that the ledger's holds did not carry yet: before the first quote
    const h = early.controls.startupHalt;
    if (h && !k.halted) control.halt(h.reason);
    // the bound port beside the config, for `ctl -c` after a reload changed admin.port (admin-state.ts)
    if (cfg.file) {
      try {
        life.add(writeAdminState(cfg.file, { pid: process.pid, port: early.endpoint.port, configFile: identity.configFile, startedAt: identity.startedAt }));
      } catch (e) {
        log.info({ err: (e as Error).message }, 'the admin port could not be noted beside the config; ctl -c reads admin.port from the file');
      }
    }
  }
  // runs first among the cleanups, after the last cancel and before the client closes (and before
  // the last mark: its fills go into the running books too)
  let refused = false;
  life.add(async () => {
    // a run refused at start placed nothing: what the sweep would find (orders placed in the last 10 minutes,
    // those open at start) is the other trader's, whose fills are not this ledger's to keep
    cp.releaseHeldFills(!refused);
    // orders the cancel-all found gone without seeing their end: the sweep reads their real status,
    // then the store closes them (closed-at-stop.ts); never ended 'gone' before the sweep looked them up
    // (those the store still shows: a feed may have closed one since, after a kill switch's cancel-all the bot outlived)
    // (and those the stop's cancels were answered alreadyCancelled: the store let them go with that answer, their end still unread)
    const gone = om.endedAtStop().filter((g) => g.answered === true || cp.core.store.state.markets.get(g.marketId)?.orders.has(g.nonce) === true);
    let read: readonly VenueOrderStatus[] | null = null;
    const closing = gone.length > 0 ? { nonces: gone.map((g) => g.nonce), read: (r: readonly VenueOrderStatus[]) => (read = r) } : undefined;
    if (refused) log.info("refused at start: no fills swept into this ledger (the orders at the venue are another trader's)");
    // the fills it finds go to the books, then to the store (as the feeds' fills: its position, attribution
    // and fill counters then hold what the books hold), before the closes of their orders
    // (marked in the books then, as a tick marks them: a market whose first fill this is has no mark yet)
    else
      await bookLedger.finalSweep(client, cp.venue.trader, accountBooks, closing, (fills) => {
        cp.core.receiveAll(fills);
        cp.core.kernel.markBooksOf(new Set(fills.map((f) => f.marketId)));
      });
    closeAtStop({ core: cp.core, clock: c.clock, log, ends: (n) => bookLedger.orderEndsOf(n) }, gone, read);
  });
  // from here on this run may hold orders at the venue: a stop request during the rest of start-up
  // cancels them before startBot gives up (the kill switch and halts do the same through shutdown)
  let started = false;
  life.add(async () => {
    if (started || !signal?.aborted) return;
    k.stop();
    const r = await om.cancelAll();
    log.info({ cancelled: r.cancelled, endedBefore: r.endedBefore, remaining: r.remaining }, 'stopped during start-up: orders cancelled');
  });
  return {
    control,
    siblings,
    started() {
      started = true;
    },
    refusedForWallet() {
      refused = true;
    },
  };
}
