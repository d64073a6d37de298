/**
 * The engine's self-check (exposed as MatchingEngine.checkInvariants for tests and the server) and
 * the signed-limit check of one order's cumulative state.
 */
import type { OrderState } from './types.ts';
import { KIND_BUY, KIND_SELL_INVENTORY, claimPayout, proRataFloor } from './fill-math.ts';
import type { Ledger } from './ledger.ts';
import type { MarketState } from './market-state.ts';
import {
  ALIVE_TOMB,
  CHUNK_BITS,
  CHUNK_MASK,
  FL_ALIVE_MASK,
  FL_KIND,
  FL_OUTCOME,
  FL_SIDE,
  F_FEES,
  F_FILLED,
  F_MAX_FEE,
  F_QTY,
  FL_LEVEL,
  F_STRIDE,
  I_STRIDE,
  I_MARKET,
  I_TRADER,
  type OrderPool,
} from './order-pool.ts';

const NIL = -1;
const RESTING = 2;

/**
 * Every invariant of the ledger and books, as messages (empty = all hold): conservation of
 * collateral, equal YES/NO supply backed by locked collateral, reservations equal to what open orders
 * hold, non-negative balances, uncrossed books whose aggregates match their queues, and every open
 * order within its signed limits.
 */
export function checkEngineInvariants(p: OrderPool, l: Ledger, markets: MarketState[]): string[] {
  const errs: string[] = [];
  let sum = l.fee;
  const resC = new Float64Array(l.traders);
  for (let t = 0; t < l.traders; t++) {
    sum += l.collateral[t]!;
    if (l.collateral[t]! < 0) errs.push(`trader ${t}: negative collateral`);
    if (l.reserved[t]! > l.collateral[t]!) errs.push(`trader ${t}: reserved above collateral`);
  }
  if (l.fee < 0) errs.push('fee account negative');
  const supY = new Float64Array(markets.length);
  const supN = new Float64Array(markets.length);
  const resY = new Float64Array(l.positionsUsed);
  const resN = new Float64Array(l.positionsUsed);
  for (let pos = 0; pos < l.positionsUsed; pos++) {
    const m = l.posMarket[pos]!;
    supY[m] = supY[m]! + l.yes[pos]!;
    supN[m] = supN[m]! + l.no[pos]!;
    if (l.yes[pos]! < 0 || l.no[pos]! < 0) errs.push(`position ${pos}: negative tokens`);
    if (l.yesReserved[pos]! > l.yes[pos]! || l.noReserved[pos]! > l.no[pos]!) errs.push(`position ${pos}: tokens reserved above held`);
  }
  for (let m = 0; m < markets.length; m++) {
    const mk = markets[m]!;
    sum += mk.backing;
    if (supY[m] !== mk.supplyYes || supN[m] !== mk.supplyNo) errs.push(`market ${m}: token supply does not match holdings`);
    if (mk.payoutYes === null) {
      if (mk.supplyYes !== mk.supplyNo || mk.supplyYes !== mk.backing) errs.push(`market ${m}: YES supply, NO supply and backing differ`);
    } else if (mk.backing < claimPayout(mk.supplyYes, mk.supplyNo, mk.payoutYes)) {
      errs.push(`market ${m}: backing below outstanding payouts`);
    }
    const L = mk.ladder;
    if (L.bestBid > 0 && L.bestAsk < L.top && L.bestBid >= L.bestAsk) errs.push(`market ${m}: book crossed`);
    for (let side = 0; side < 2; side++) {
      let best = side === 0 ? 0 : L.top;
      for (let lvl = 1; lvl < L.top; lvl++) {
        let n = 0;
        let tombs = 0;
        let size = 0;
        let last = NIL;
        for (let s = L.head[side]![lvl]!; s !== NIL; s = p.next(s)) {
          const iv = p.ic[s >>> CHUNK_BITS]!;
          const ib = (s & CHUNK_MASK) * I_STRIDE;
          const fl = p.flags(s);
          const alive = fl & FL_ALIVE_MASK;
          if (alive === ALIVE_TOMB) tombs++;
          else {
            const o = stateOfSlot(p, s);
            n++;
            size += o.quantity - o.filledShares;
          }
          if ((alive !== RESTING && alive !== ALIVE_TOMB) || fl >>> FL_LEVEL !== lvl || ((fl >> FL_SIDE) & 1) !== side || iv[ib + I_MARKET] !== m) {
            errs.push(`market ${m}: stray order in queue`);
          }
          last = s;
        }
        if (last !== L.tail[side]![lvl]) errs.push(`market ${m}: level ${lvl} side ${side} tail is not the queue's last slot`);
        if (n !== L.count[side]![lvl] || size !== L.size[side]![lvl]) errs.push(`market ${m}: level ${lvl} side ${side} aggregate mismatch`);
        if (tombs !== L.tombs[side]![lvl]) errs.push(`market ${m}: level ${lvl} side ${side} tombstone count mismatch`);
        if (n > 0 && (side === 0 ? lvl > best : best === L.top)) best = lvl;
      }
      if (best !== (side === 0 ? L.bestBid : L.bestAsk)) errs.push(`market ${m}: best ${side === 0 ? 'bid' : 'ask'} pointer wrong`);
      let live = 0;
      for (let lvl = 0; lvl <= L.top; lvl++) live += L.count[side]![lvl]!;
      if (live !== L.liveOrders(side)) errs.push(`market ${m}: side ${side} live order count ${L.liveOrders(side)}, levels hold ${live}`);
    }
  }
  if (sum !== l.total) errs.push(`conservation: traders + fees + backing = ${sum}, deposits = ${l.total}`);
  for (let s = 0; s < p.used; s++) {
    const iv = p.ic[s >>> CHUNK_BITS]!;
    const ib = (s & CHUNK_MASK) * I_STRIDE;
    const fl = p.flags(s);
    // free slots, and tombstones (counted against their queues above; they reserve nothing)
    if ((fl & FL_ALIVE_MASK) === 0 || (fl & FL_ALIVE_MASK) === ALIVE_TOMB) continue;
    if ((fl & FL_ALIVE_MASK) !== RESTING) errs.push(`order slot ${s}: live but not resting between commands`);
    const t = iv[ib + I_TRADER]!;
    const o = stateOfSlot(p, s);
    if (o.kind === KIND_SELL_INVENTORY) {
      const pos = l.findPosition(t, iv[ib + I_MARKET]!);
      const r = o.maxShares - o.filledShares;
      if (((fl >> FL_OUTCOME) & 1) === 1) resY[pos] = resY[pos]! + r;
      else resN[pos] = resN[pos]! + r;
    } else resC[t] = resC[t]! + (o.maxCollateralIn - o.collateralPaid - o.fees);
    errs.push(...orderLimitErrors(o).map((e) => `order slot ${s}: ${e}`));
  }
  for (let t = 0; t < l.traders; t++) if (resC[t] !== l.reserved[t]) errs.push(`trader ${t}: reserved collateral ≠ open orders' reservations`);
  for (let pos = 0; pos < l.positionsUsed; pos++) {
    if (resY[pos] !== l.yesReserved[pos] || resN[pos] !== l.noReserved[pos]) errs.push(`position ${pos}: reserved tokens ≠ open orders' reservations`);
  }
  return errs;
}

function stateOfSlot(p: OrderPool, s: number) {
  const f = p.fc[s >>> CHUNK_BITS]!;
  const b = (s & CHUNK_MASK) * F_STRIDE;
  const kind = (p.flags(s) >> FL_KIND) & 3;
  const coll = p.collateralOf(s);
  return {
    kind,
    quantity: f[b + F_QTY]!,
    filledShares: f[b + F_FILLED]!,
    collateralPaid: kind === KIND_SELL_INVENTORY ? 0 : coll,
    collateralReceived: kind === KIND_SELL_INVENTORY ? coll : 0,
    fees: f[b + F_FEES]!,
    maxFee: f[b + F_MAX_FEE]!,
    ...p.limitsOf(s),
  };
}

/** The signed-limit checks of one order's cumulative state (open or final); [] when all hold. */
export function orderLimitErrors(
  o: Omit<
    Pick<
      OrderState,
      | 'kind'
      | 'filledShares'
      | 'collateralPaid'
      | 'collateralReceived'
      | 'fees'
      | 'maxFee'
      | 'maxShares'
      | 'minSharesOut'
      | 'maxCollateralIn'
      | 'minCollateralOut'
    >,
    'kind'
  > & { kind: number },
): string[] {
  const e: string[] = [];
  if (o.fees > o.maxFee) e.push('fees above maxFee');
  if (o.kind === KIND_BUY) {
    if (o.filledShares > o.minSharesOut) e.push('filled above minSharesOut');
    if (o.collateralPaid + o.fees > o.maxCollateralIn) e.push('paid + fees above maxCollateralIn');
  } else {
    if (o.filledShares > o.maxShares) e.push('filled above maxShares');
    if (o.kind === KIND_SELL_INVENTORY) {
      const floor = proRataFloor(o.minCollateralOut, o.filledShares, o.maxShares);
      if (o.collateralReceived - o.fees < floor) e.push('net received below the pro-rata minCollateralOut');
    } else if (o.collateralPaid + o.fees > o.maxCollateralIn) e.push('paid + fees above maxCollateralIn');
  }
  return e;
}
