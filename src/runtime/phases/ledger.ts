/**
 * The ledger phase of the live start-up (src/runtime/bot.ts): the books and the kill-switch latch carried
 * across restarts (src/ledger), caught up with the venue's history, and a halt sent while starting made
 * durable in it.
 */
import type { Account } from '../../account/account.ts';
import { RunFigures } from '../../account/run-figures.ts';
import { BotLedger } from '../../ledger/bot-ledger.ts';
import { shardOwns, shardText } from '../../selection/shard.ts';
import { ShardSiblings, shardTag } from '../shard-tags.ts';
import type { Bytes32 } from '../../model/order.ts';
import { PAPER_TRADER } from '../paper-venue.ts';
import type { SelectPhase } from './select.ts';
import { retryStartupStep } from '../startup-retry.ts';
import { retryOptions, type StartContext } from './start-context.ts';
import type { VenuePhase } from './venue.ts';

export interface LedgerPhase {
  readonly bookLedger: BotLedger;
  /** the account's books, rebuilt from the ledger: every PnL figure and the kill switch read them */
  readonly accountBooks: Account;
  /** this run's share of the books (the books now less the books as the ledger began the run) */
  readonly runFigures: RunFigures;
  /** a sharded bot: the other shards of its wallet, known by their nonce tags (null: not sharded, or paper) */
  readonly siblings: ShardSiblings | null;
}

export async function ledgerPhase(c: StartContext, { client, signer }: VenuePhase, { marketIds, lists }: SelectPhase): Promise<LedgerPhase> {
  const { cfg, log, v, paper } = c;
  c.early?.controls.phase('ledger and catch-up');
  const shard = cfg.selection.shard;
  // a shard knows the other shards of its wallet by their tags (src/runtime/shard-tags.ts): the catch-up, the
  // final sweep and the wallet watch tell a sibling's order from this shard's own by it
  const siblings = shard && signer && !paper ? new ShardSiblings(signer.address, shard.index) : null;
  // the catch-up reads the venue's orders (GET /orders): a venue that rate-limits or restarts while the bot
  // starts is waited for until the start-up's deadline; a failed attempt closed the ledger, so a retry reopens it
  const bookLedger = await retryStartupStep(
    "ledger catch-up (the venue's orders)",
    () =>
      BotLedger.open({
        config: cfg,
        clock: c.clock,
        logger: c.o.logger,
        trader: signer && !paper ? signer.address : PAPER_TRADER,
        venue: v.baseUrl,
        chain: v.chain.name,
        client,
        embedded: v.local !== null,
        markets: marketIds.length,
        paper,
        newLedger: c.o.newLedger === true,
        // a shared wallet (reconcileScope markets, shards): other markets' orders are not this ledger's
        ...(cfg.orders.reconcileScope === 'markets'
          ? { owns: (id: Bytes32) => (cfg.selection.shard ? shardOwns(id, cfg.selection.shard) : lists.known(id)) }
          : {}),
        ...(siblings ? { sibling: (n: Bytes32) => siblings.siblingOf(n) !== null } : {}),
      }),
    retryOptions(c),
  );
  c.life.add(() => bookLedger.close());
  // a sharded bot's new ledger takes its shard's nonce tag: the deployment's other shards know its orders
  // (src/runtime/shard-tags.ts); a ledger that has a tag keeps it
  if (shard && signer && !paper) {
    const own = shardTag(signer.address, shard.index);
    const tag = bookLedger.ledger.nonceTag(() => own);
    if (tag !== null && tag !== own)
      log.warn(
        { tag, shardTag: own, shard: shardText(shard) },
        `this ledger's nonce tag is not shard ${shard.index}'s (it was created before shard tags, or for another shard): ` +
          "the other shards of this wallet take its orders for another trader's (docs/operating.md#changing-the-shard-count)",
      );
  }
  // a halt sent while starting is written to the ledger now (durable), and read back with
  // the operator's holds (holds phase), before anything can tick
  c.early?.controls.bindLedger((reason) => {
    try {
      bookLedger.operatorAction('halt', null, reason, 'every quote pulled until resume (sent during start-up)');
      return true;
    } catch (e) {
      log.error({ err: (e as Error).message }, 'a halt sent during start-up could not be written to the ledger: it holds this run only');
      return false;
    }
  });
  const accountBooks = bookLedger.books();
  return { bookLedger, accountBooks, runFigures: new RunFigures(accountBooks), siblings };
}
