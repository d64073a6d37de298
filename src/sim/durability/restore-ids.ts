/**
 * Ids and addresses of records read back from a state file, in the exchange's one spelling
 * (../wire-ids.ts): market ids, nonces and hashes lower-case `Bytes32`, addresses lower-case.
 * Files written before the exchange normalised ids hold checksummed addresses and nonces as the
 * client spelt them; a snapshot written since says so (`IDS_NORMALISED` in its meta) and its many
 * orders and activity entries are taken as they are. A malformed id refuses the file, naming it.
 */
import type { ActivityEntry, MarketRecord, StoredOrder } from '../records.ts';
import { mustAddress, mustBytes32 } from '../wire-ids.ts';

/** The meta mark of a snapshot whose ids are in the normal spelling. */
export const IDS_NORMALISED = 'lower';

export function normaliseMarket(m: MarketRecord): void {
  const what = `state file: market ${String(m.id)}`;
  m.id = mustBytes32(m.id, what);
  m.txHash = mustBytes32(m.txHash, `${what} txHash`);
  m.creator = mustAddress(m.creator, `${what} creator`);
  m.oracle = mustAddress(m.oracle, `${what} oracle`);
  m.outcomeTokens = [mustAddress(m.outcomeTokens[0], `${what} outcome token`), mustAddress(m.outcomeTokens[1], `${what} outcome token`)];
  m.contractAddress = mustAddress(m.contractAddress, `${what} contract`);
  m.participants = m.participants.map((a) => mustAddress(a, `${what} participant`));
}

export function normaliseOrder(o: StoredOrder): void {
  const what = `state file: order ${o.id}`;
  o.hash = mustBytes32(o.hash, `${what} hash`);
  o.marketId = mustBytes32(o.marketId, `${what} marketId`);
  o.trader = mustAddress(o.trader, `${what} trader`);
  o.nonce = mustBytes32(o.nonce, `${what} nonce`);
}

export function normaliseActivity(e: ActivityEntry): void {
  e.marketId = mustBytes32(e.marketId, `state file: activity ${e.seq} marketId`);
  if (e.traders) e.traders = e.traders.map((a) => mustAddress(a, `state file: activity ${e.seq} trader`));
}
