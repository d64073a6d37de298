/**
 * The money figures of `bookmaker ctl status` (GET /admin/status `books` and `killSwitchFigures`):
 * read from the account's books and its kill switch, never recomputed, so they are the figures
 * `/metrics`, the run report and `ledger summary|pnl` show (docs/books-and-pnl.md, docs/operating.md).
 *
 *   statusBooks(account, quoted)           → { account: {...}, markets: [...] }  (exact decimal strings)
 *   killSwitchFigures(risk, pnl, now)       → { pnl, peak, drawdown, maxDrawdown, … }
 *
 * Every amount is an exact decimal string with six decimals (`micro`): USDC for money, shares for
 * positions; 1e-6 units on the wire as the books hold them, so a reader compares to the unit.
 */
import type { Account } from '../account/account.ts';
import type { AccountRisk } from '../account/account-risk.ts';
import type { Bytes32 } from '../model/order.ts';
import { micro } from '../model/units.ts';

/** One market as the books hold it. */
export interface StatusMarket {
  readonly market: string;
  /** quoted by this run now (false: a released market the books still hold) */
  readonly quoted: boolean;
  /** net YES position (YES − NO), shares: `bookmaker_position_shares` (Account.holdingsOf) */
  readonly position: string;
  readonly yes: string;
  readonly no: string;
  /** `bookmaker_pnl_usdc{kind}` (Account.marketPnl) */
  readonly realised: string;
  readonly unrealised: string;
  readonly pnl: string;
  /** since the books began this market (Account.market): `ledger pnl` fills, volume, fees */
  readonly fills: number;
  readonly volume: string;
  readonly fees: string;
}

export interface StatusBooks {
  /** Account.figures(): `bookmaker_account_*`, the run report's `account` block, `ledger summary` */
  readonly account: {
    readonly pnl: string;
    readonly realised: string;
    readonly unrealised: string;
    readonly fees: string;
    readonly volume: string;
    readonly fills: number;
    readonly cash: string;
    readonly markedAt: string | null;
  };
  readonly markets: StatusMarket[];
}

export interface KillSwitchFigures {
  /** the account PnL the kill switch acts on (Account.pnl) */
  readonly pnl: string;
  readonly peak: string;
  /** peak − pnl, against maxDrawdown */
  readonly drawdown: string;
  /** account.maxDrawdown (null: off) */
  readonly maxDrawdown: string | null;
  readonly dayStartPnl: string;
  /** dayStartPnl − pnl, against maxDailyLoss */
  readonly dailyLoss: string;
  readonly maxDailyLoss: string | null;
  /** −pnl: the loss since inception, against maxLoss */
  readonly loss: string;
  /** account.maxLoss (null: off) */
  readonly maxLoss: string | null;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** The account and every market the books hold, plus the quoted markets they hold nothing of yet. */
export function statusBooks(account: Account, quoted: readonly Bytes32[]): StatusBooks {
  const f = account.figures();
  const q = new Set(quoted);
  const ids = [...new Set([...account.marketIds(), ...quoted])].sort();
  const markets = ids.map((id): StatusMarket => {
    const pnl = account.marketPnl(id);
    const h = account.holdingsOf(id);
    const m = account.market(id);
    return {
      market: id,
      quoted: q.has(id),
      position: micro(h.net),
      yes: micro(m?.yes ?? 0),
      no: micro(m?.no ?? 0),
      realised: micro(pnl.realised),
      unrealised: micro(pnl.unrealised),
      pnl: micro(pnl.realised + pnl.unrealised),
      fills: m?.fills ?? 0,
      volume: micro(m?.volume ?? 0n),
      fees: micro(m?.fees ?? 0n),
    };
  });
  return {
    account: {
      pnl: micro(f.total),
      realised: micro(f.realised),
      unrealised: micro(f.unrealised),
      fees: micro(f.fees),
      volume: micro(f.volume),
      fills: f.fills,
      cash: micro(f.cash),
      markedAt: iso(f.markedAt),
    },
    markets,
  };
}

/** The kill switch's figures now (AccountRisk.standing at the books' PnL) and its limits. */
export function killSwitchFigures(risk: AccountRisk, pnl: bigint, now: number): KillSwitchFigures {
  const s = risk.standing(Number(pnl), now);
  const l = risk.limits;
  const limit = (v: number): string | null => (v > 0 ? micro(v) : null);
  return {
    pnl: micro(s.pnl),
    peak: micro(s.peak),
    drawdown: micro(s.drawdown),
    maxDrawdown: limit(l.maxDrawdown),
    dayStartPnl: micro(s.dayStartPnl),
    dailyLoss: micro(s.dailyLoss),
    maxDailyLoss: limit(l.maxDailyLoss),
    loss: micro(-s.pnl),
    maxLoss: limit(l.maxLoss),
  };
}
