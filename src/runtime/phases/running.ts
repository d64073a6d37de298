/**
 * The last phases of the live start-up (src/runtime/bot.ts): reconcile with the venue, adopting what
 * matches the strategies' first quotes; another trader's or a sibling shard's orders found there are
 * dealt with; only then does the kernel start ticking and quote; rotation begins and schedules its
 * refreshes (reconcile); the process is running, with the health model's clock ticking (running).
 */
import { schedulePeriodicReconcile } from '../../orders/periodic-reconcile.ts';
import { haltText, latchText } from '../../ledger/held-state.ts';
import { BookmakerError } from '../../model/errors.ts';
import { retryStartupStep, StartupAbortedError } from '../startup-retry.ts';
import type { ControlPhase } from './control.ts';
import type { CorePhase } from './core.ts';
import type { EndpointsPhase } from './endpoints.ts';
import type { LedgerPhase } from './ledger.ts';
import type { RotationPhase } from './rotation.ts';
import type { SelectPhase } from './select.ts';
import { retryOptions, type StartContext } from './start-context.ts';
import { cancelSiblingsAtStart } from './siblings.ts';
import { WalletSharedError } from '../wallet-watch.ts';
import { checkWalletAtStart } from './wallet.ts';

export async function reconcilePhase(
  c: StartContext,
  { markets, marketIds }: SelectPhase,
  { bookLedger }: LedgerPhase,
  cp: CorePhase,
  { endpoint }: EndpointsPhase,
  { rotation: rot, venueFact }: RotationPhase,
  ctl: ControlPhase,
): Promise<void> {
  const { log, signal } = c;
  const { kernel: k, orderManager: om, store } = cp.core;
  c.early?.controls.phase('reconcile');
  // nothing is quoted before the venue's open orders were read: what rests there (an earlier run's orders, another
  // trader's) is unknown until then, to the limits and to the wallet check. A venue that fails transiently is retried
  // until the start-up deadline (exit 8); any other failure ends the start-up.
  await retryStartupStep(
    'reconcile with the venue',
    async () => {
      if (await om.reconcile(undefined, k.desired())) return;
      throw om.reconcileListError() ?? new BookmakerError('INVARIANT', "the start-up reconcile failed (see the log's error above)");
    },
    retryOptions(c),
  );
  if (signal?.aborted) throw new StartupAbortedError(String(signal.reason ?? 'stop'));
  // another trader's open orders in these markets refuse the start (exit 7) before the first quote;
  // from here on a new one halts the bot (phases/wallet.ts)
  // (refused: the stop writes no fill of theirs into this ledger, ControlPhase.refusedForWallet)
  try {
    checkWalletAtStart(c, cp.wallet?.watch ?? null, bookLedger.ledger.path === ':memory:', bookLedger.ledger.nonceTag());
    // a sibling shard's orders in this shard's markets (the shard count changed): cancelled before the first quote
    for (const [m, j] of await cancelSiblingsAtStart(c, cp.wallet?.watch ?? null, cp.venue)) ctl.siblings?.contest(m, j);
  } catch (e) {
    if (e instanceof WalletSharedError) ctl.refusedForWallet();
    throw e;
  }
  cp.wallet?.watch.running();
  // the first tick of any market, and so the first create, comes after the checks above: a kernel
  // started earlier ticked during the reconcile (housekeeping, a book event) and its quotes went out
  // as the refusal was thrown (test/runtime/phases/running.test.ts)
  cp.startTicking();
  for (const id of marketIds) k.tick(id);
  c.life.add(schedulePeriodicReconcile(om, c.clock, c.cfg.orders.reconcileIntervalMs));
  rot.begin(markets);
  // a market whose status came in before rotation existed (resolved, closed at start-up) retires now
  for (const m of markets) venueFact(m.marketId, store.state.markets.get(m.marketId)?.status);
  rot.schedule();
  const latch = bookLedger.latch;
  // what holds the bot, each hold in its own source's words (held-state.ts): the kill switch, the halt
  const held = [
    ...(k.killed ? [latchText(latch ?? { reason: k.killed, detail: null, at: null })] : []),
    ...(k.halted ? [haltText(ctl.control.haltNow() ?? { reason: null, at: 0, source: 'admin' })] : []),
  ];
  log.info(
    {
      metrics: endpoint?.url ?? 'off',
      trader: cp.venue.trader,
      ...(latch ? { reason: latch.reason, detail: latch.detail, since: new Date(latch.at).toISOString() } : {}),
      ...(k.halted ? { halt: ctl.control.haltHeld() } : {}),
    },
    held.length > 0 ? `not quoting: ${held.join('; ')}` : 'quoting',
  );
}

export function runningPhase(c: StartContext, cp: CorePhase, { lists }: RotationPhase, ctl: ControlPhase): void {
  const { clock } = c;
  const { healthModel, refusals } = cp;
  ctl.started();
  void cp.claims?.start(); // positions held from earlier runs that are claimable now
  // (a latch from an earlier run already holds the health model: the core phase named it as it read the latch)
  healthModel.setProcess('running');
  // the health model's clock: transitions and time per state even when nobody scrapes
  let cancelHealthTimer: () => void = () => undefined;
  const healthLoop = (): void => {
    healthModel.evaluate();
    refusals.flush(clock.now());
    lists.sweep();
    cancelHealthTimer = clock.setTimeout(healthLoop, 1_000);
  };
  cancelHealthTimer = clock.setTimeout(healthLoop, 1_000);
  c.life.add(() => cancelHealthTimer());
}
