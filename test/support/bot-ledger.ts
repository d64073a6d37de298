/**
 * A live bot's ledger (BotLedger) in a file, as `bookmaker run` opens it on a venue URL: no embedded
 * exchange, not paper, one market, flushing every 200 ms. The venue is `client` (by default one with
 * no orders).
 */
import type { Clock } from '../../src/core/clock.ts';
import { silentLogger } from '../../src/core/logger.ts';
import { BotLedger, type BotLedgerOptions } from '../../src/ledger/bot-ledger.ts';
import type { Address } from '../../src/model/order.ts';

export interface TestBotLedger {
  path: string;
  clock: Clock;
  trader: Address;
  client?: BotLedgerOptions['client'];
  fees?: { makerBps: number; takerBps: number };
  newLedger?: boolean;
  venue?: string;
}

/** The BotLedger config of a url venue whose ledger is at `path`. */
export function ledgerConfig(path: string, fees?: TestBotLedger['fees']): BotLedgerOptions['config'] {
  return { file: '', venue: { kind: 'url' }, ledger: { path, flushMs: 200, markMs: 10_000, ...(fees ? { fees } : {}) }, markets: [] } as never;
}

export function openBotLedger(o: TestBotLedger): Promise<BotLedger> {
  return BotLedger.open({
    config: ledgerConfig(o.path, o.fees),
    clock: o.clock,
    logger: silentLogger,
    trader: o.trader,
    venue: o.venue ?? 'http://x/v2',
    chain: 'testnet',
    client: o.client ?? { orders: { async *iterate() {} } },
    embedded: false,
    markets: 1,
    paper: false,
    ...(o.newLedger !== undefined ? { newLedger: o.newLedger } : {}),
  });
}
