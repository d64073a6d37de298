/**
 * Another trader on this bot's wallet, at start-up and while the bot runs (src/runtime/wallet-watch.ts;
 * docs/control.md#another-trader-on-this-wallet):
 *   walletWatchFor   the watch every open-orders listing of the order manager passes through (core phase);
 *   checkWalletAtStart  after the start-up reconcile: foreign orders found refuse the start (exit 7);
 *   watchWallet      while running: a foreign order that appears halts the bot, latched in the ledger
 *                    and the latch file like an operator halt (source `wallet`), until `ctl resume`;
 *                    bookmaker_wallet_foreign_orders_total and bookmaker_wallet_shared.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { BotControl } from '../../control/bot-control.ts';
import type { BotLedger } from '../../ledger/bot-ledger.ts';
import type { Bytes32 } from '../../model/order.ts';
import type { ShardSiblings } from '../shard-tags.ts';
import { foreignText, WalletSharedError, WalletWatch, type ForeignOrders, type WalletWatchOptions } from '../wallet-watch.ts';
import type { StartContext } from './start-context.ts';

/** the source of the halt the bot places on itself when another trader appears on its wallet */
export const WALLET_HALT_SOURCE = 'wallet';

/** What to do, in the words of the refusal and of the halt. */
const STOP_THE_OTHER = 'stop the other bot on this wallet (or give each bot its own markets: --shard I/N, orders.reconcileScope: markets)';

/** while the bot stays halted for another trader, more of its orders are logged at most this often */
const STILL_LOG_MS = 60_000;

export interface WalletWatchHandle {
  readonly watch: WalletWatch;
  /** what a foreign order that appears while the bot runs does (watchWallet) */
  bind(onAppeared: (f: ForeignOrders) => void): void;
  /** what a sibling shard's orders in this shard's markets do while it runs (phases/siblings.ts) */
  bindSiblings?(onSiblings: NonNullable<WalletWatchOptions['onSiblings']>): void;
}

/**
 * The watch of the live bot (null on paper, or without a nonce tag to tell this bot's orders by).
 * `onAppeared` is bound once the control exists (watchWallet); until then a foreign order is a start-up find.
 */
export function walletWatchFor(
  c: StartContext,
  bookLedger: BotLedger,
  scope: () => readonly Bytes32[] | null,
  /** orders the start-up migration restored (their legacy nonces): this wallet's own */
  restored: ReadonlySet<Bytes32> = new Set(),
  /** this process signed or found the order (the order manager's nonce memory) */
  issued: (nonce: Bytes32) => boolean = () => false,
  /** a sharded bot: the other shards of its wallet, known by their nonce tags (src/runtime/shard-tags.ts) */
  siblings: ShardSiblings | null = null,
): WalletWatchHandle | null {
  if (c.paper) return null;
  const ledger = bookLedger.ledger;
  if (ledger.nonceTag() === null) {
    c.log.warn('the ledger has no nonce tag: another trader on this wallet cannot be told from this bot (docs/control.md)');
    return null;
  }
  let appeared: (f: ForeignOrders) => void = (f) => c.log.error({ orders: f.orders }, 'foreign orders appeared before the control was wired');
  let onSiblings: NonNullable<WalletWatchOptions['onSiblings']> = () => undefined;
  const watch = new WalletWatch({
    ...(siblings ? { sibling: (n: Bytes32) => siblings.siblingOf(n), onSiblings: (f, covered) => onSiblings(f, covered) } : {}),
    ours: ownOrder(ledger, restored, issued),
    scope,
    // an in-memory ledger (the embedded demo, a `local` config) remembers no earlier run: every order a
    // crash left looks foreign, so what the start finds is adopted or cancelled as an earlier run's
    cancelAtStart: c.o.cancelForeignOrders === true || ledger.path === ':memory:',
    onAppeared: (f) => appeared(f),
  });
  return { watch, bind: (f) => (appeared = f), bindSiblings: (f) => (onSiblings = f) };
}

/**
 * Is this order the bot's (WalletWatchOptions.ours)? A restored one, a recorded one, or one with the
 * ledger's tag: at start-up any (a crash's, left unrecorded), while running only one this process
 * signed or found (else a copy of this ledger signs elsewhere).
 */
export function ownOrder(
  ledger: { isTagged(nonce: Bytes32): boolean; hasOrder(nonce: Bytes32): boolean },
  restored: ReadonlySet<Bytes32>,
  issued: (nonce: Bytes32) => boolean,
): (nonce: Bytes32, starting: boolean) => boolean {
  return (nonce, starting) => restored.has(nonce) || (ledger.isTagged(nonce) && (starting || issued(nonce))) || ledger.hasOrder(nonce);
}

/**
 * After the start-up reconcile: open orders of another trader in this bot's markets refuse the start
 * (WalletSharedError, exit 7), unless `--cancel-foreign-orders` (or an in-memory ledger, `memory`) let
 * the reconcile adopt or cancel them.
 */
export function checkWalletAtStart(c: StartContext, watch: WalletWatch | null, memory: boolean, ownTag: string | null = null): void {
  if (!watch) return;
  if (!watch.listed) {
    c.log.warn('the start-up reconcile could not list the open orders: another trader on this wallet is looked for at the next reconcile (and halts the bot)');
    return;
  }
  const found = watch.foundAtStart();
  if (!found) return;
  const what = foreignText(found, 5, ownTag);
  if (c.o.cancelForeignOrders || memory) {
    c.log.warn(
      { orders: found.orders, markets: found.markets, tags: found.tags.map((t) => t.tag) },
      `${memory && !c.o.cancelForeignOrders ? 'the ledger is in memory, so an earlier run of this bot cannot be told from another trader' : '--cancel-foreign-orders'}: ` +
        `adopting or cancelling open orders of this wallet this bot did not place, as left over from an earlier run: ${what}; a new one while this bot runs halts it`,
    );
    return;
  }
  throw new WalletSharedError(
    `another trader has open orders on this wallet in this bot's markets: ${what}. ` +
      `Not quoting beside it: the two would cancel each other's orders and neither's limits would count the other's. ` +
      `If another bot runs on this wallet: ${STOP_THE_OTHER}, or cancel its orders. ` +
      `If these are left over from a run whose ledger is gone (its orders keep their tag; nothing changes them): start once with --cancel-foreign-orders to cancel them`,
    found,
  );
}

/**
 * While running: a foreign order that appears halts the bot through the control (written to the ledger
 * and the latch file before it takes effect, so no restart and no vanishing order lifts it: only
 * `bookmaker ctl resume`); an error log line says what and why. The metrics read the watch and the
 * control at scrape time.
 */
export function watchWallet(
  c: StartContext,
  w: WalletWatchHandle | null,
  control: Pick<BotControl, 'halt' | 'haltHeld'>,
  registry: Registry,
  /** this ledger's nonce tag: an order with it that this process did not sign is a copy of the ledger at work */
  ownTag: string | null = null,
): void {
  let saidAt = Number.NEGATIVE_INFINITY;
  w?.bind((found) => {
    const what = foreignText(found, 5, ownTag);
    if (control.haltHeld()?.source === WALLET_HALT_SOURCE) {
      // halted for this already: recorded once, not again for every order the other trader places
      const now = c.clock.now();
      if (now - saidAt >= STILL_LOG_MS) {
        saidAt = now;
        c.log.warn(
          { orders: found.orders, tags: found.tags.map((t) => t.tag) },
          `another trader is still placing orders on this wallet (${what}); this bot stays halted`,
        );
      }
      return;
    }
    const reason = `another trader on this wallet: ${what} appeared while this bot ran`;
    // an earlier halt of any source stays recorded; this one names the new cause
    const r = control.halt(reason, WALLET_HALT_SOURCE);
    c.log.error(
      {
        orders: found.orders,
        markets: found.markets,
        tags: found.tags.map((t) => t.tag),
        persisted: (r.body as { persisted?: boolean }).persisted,
      },
      `another trader is placing orders on this wallet (${what}): halted, every quote pulled; the halt is kept in the ledger and the latch file and holds until bookmaker ctl resume. Fix: ${STOP_THE_OTHER}, then bookmaker ctl resume`,
    );
  });
  registerWalletMetrics(
    registry,
    () => w?.watch.seen ?? 0,
    () => control.haltHeld()?.source === WALLET_HALT_SOURCE,
  );
}

export function registerWalletMetrics(registry: Registry, seen: () => number, shared: () => boolean, prefix = 'bookmaker_'): void {
  new Counter({
    name: `${prefix}wallet_foreign_orders_total`,
    help: "Open orders in this bot's markets that it did not place (another bot, a person), each counted once when first seen",
    registers: [registry],
    collect() {
      this.reset();
      this.inc(seen());
    },
  });
  new Gauge({
    name: `${prefix}wallet_shared`,
    help: '1 while the bot is halted because another trader placed orders on its wallet (held across restarts until bookmaker ctl resume)',
    registers: [registry],
    collect() {
      this.set(shared() ? 1 : 0);
    },
  });
}
