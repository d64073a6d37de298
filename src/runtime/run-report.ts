/**
 * The end-of-run report: per market volume, fills, fees, realised and unrealised PnL, the
 * share of time quoting and the reasons for not quoting with their durations; printed and logged at
 * stop, written as JSON by `bookmaker run --report-json FILE`.
 *
 *   const r = buildRunReport({ … })   // pure: numbers in, report out
 *   formatRunReport(r) → string[]     // the lines printed at stop (each ≤ 120 columns)
 *
 * Money is exact: amounts are decimal strings of USDC with 6 decimals (the venue's unit), computed
 * from integers; shares likewise. Shares of time are fractions (0..1) rounded to 4 decimals.
 */
import type { AccountFigures } from '../account/account.ts';
import { microOf, usdCents, usdCentsSumming } from '../model/money-text.ts';
import { micro } from '../model/units.ts';
import type { Bytes32 } from '../model/order.ts';
import type { HealthState, MarketTimeReport, ProcessState } from '../health/health-model.ts';
import type { RunMarketTrades, RunTrades } from '../account/run-figures.ts';
import type { MarketAttribution } from '../state/edge-view.ts';
import type { BooksClaimable } from '../account/books-claimable.ts';
import type { ClaimsSnapshot } from './claims/claims-tracker.ts';
import { orderEndsText, type OrderEnds } from '../ledger/order-ends.ts';

export interface RunReportMarket {
  readonly market: string;
  readonly marketId: Bytes32;
  readonly fills: number;
  /** shares filled */
  readonly volumeShares: string;
  /** Σ price × size, USDC */
  readonly volumeUsdc: string;
  readonly feesUsdc: string;
  readonly realisedPnlUsdc: string;
  readonly unrealisedPnlUsdc: string;
  /** net YES position at stop, shares */
  readonly positionShares: string;
  /** fraction of the observed time with a live quote at the venue (or the paper venue) */
  readonly quotingShare: number;
  readonly observedSeconds: number;
  /** every state other than quoting the market spent time in, longest first */
  readonly notQuoting: readonly { readonly state: HealthState; readonly seconds: number }[];
  /**
   * where the PnL of this run's fills came from (USDC; the four sum exactly to `total`, the fills' PnL at
   * the mark): spread capture, inventory (mid moves on the position held), fees, resolution payout
   */
  readonly pnlAttributionUsdc?: {
    readonly spreadCapture: string;
    readonly inventory: string;
    readonly fees: string;
    readonly resolution: string;
    readonly total: string;
  };
  /** market rotation retired it during the run, for this reason */
  readonly retired?: string;
}

/** Market rotation over the run. */
export interface RunReportRotation {
  /** markets quoted at stop */
  readonly active: number;
  readonly started: number;
  readonly retired: number;
  readonly startedBy: Readonly<Record<string, number>>;
  readonly retiredBy: Readonly<Record<string, number>>;
  readonly refreshes: number;
  readonly refreshFailures: number;
  /** retirements not finished at stop (their orders went with the stop's cancel-all) */
  readonly retiringAtStop: readonly { readonly marketId: string; readonly reason: string; readonly seconds: number; readonly stuck: boolean }[];
}

export interface RunReport {
  readonly startedAt: string;
  readonly stoppedAt: string;
  readonly seconds: number;
  readonly paper: boolean;
  readonly stopReason: string;
  readonly exitCode: number;
  readonly process: ProcessState;
  /** why the process halted, when it did */
  readonly haltedBecause: string | null;
  readonly markets: readonly RunReportMarket[];
  readonly rotation?: RunReportRotation;
  /**
   * The run's trading over every market (released ones, and fills of markets the bot did not quote,
   * included): fills, volume, fees and realised PnL are the books' now less the books' when the run
   * began (src/account/run-figures.ts), the figures `ledger summary` rebuilds from the same fills;
   * unrealised is the books' now. The per-market rows add up to it (a row `(markets not listed)`
   * carries what no row shows).
   */
  readonly totals: {
    readonly fills: number;
    readonly volumeUsdc: string;
    readonly feesUsdc: string;
    readonly realisedPnlUsdc: string;
    readonly unrealisedPnlUsdc: string;
  };
  /**
   * The account's books at stop: the same figures as the kill switch, /metrics and
   * `ledger summary` (since inception, every market, released ones included), USDC
   */
  readonly account?: RunReportAccount;
  /** after resolution (src/runtime/claims): this instance's resolved markets, their payouts and what is claimable */
  readonly claims?: RunReportClaims;
  /**
   * this run's orders by how they ended, from the ledger as the stop left it (src/ledger/order-ends.ts: the
   * counts `ledger summary` shows as `orderEnds` for the same window); absent when the ledger could not be read
   */
  readonly orders?: OrderEnds;
}

export interface RunReportAccount {
  readonly pnlUsdc: string;
  readonly realisedUsdc: string;
  readonly unrealisedUsdc: string;
  readonly feesUsdc: string;
  /** the latest mark in the figures (ISO time; null: never marked) */
  readonly markedAt: string | null;
}

export interface RunReportClaims {
  readonly markets: readonly {
    readonly marketId: Bytes32;
    /** claimable | claimed | nothing-to-claim | pending (resolved, the venue not yet showing it) */
    readonly state: string;
    /** USDC one share pays; null when not known */
    readonly payoutYesUsdc: string | null;
    readonly payoutNoUsdc: string | null;
    readonly yesShares: string;
    readonly noShares: string;
    readonly claimableUsdc: string;
  }[];
  readonly totalClaimableUsdc: string;
  /**
   * what the books hold resolved and unclaimed (their word, not the venue's): markets and what claiming
   * them pays (src/account/books-claimable.ts: the figure of `bookmaker_books_claimable_usdc` and
   * `bookmaker ledger summary`'s `claimable`)
   */
  readonly books?: { readonly markets: number; readonly claimableUsdc: string };
  readonly reads: number;
  readonly readErrors: number;
  /** settled resolved markets (claimed, nothing to claim) beyond the listed newest 500, counted only */
  readonly earlierSettled?: number;
  /**
   * markets still claimable `afterHours` (24) after first seen so, restarts included (the venue did not claim them): not in `markets`,
   * their amounts in `totalClaimableUsdc`; the largest named (src/runtime/claims/claims-tracker.ts)
   */
  readonly overdue?: {
    /** hours claimable before a market is overdue */
    readonly afterHours: number;
    readonly markets: number;
    readonly claimableUsdc: string;
    readonly largest: readonly {
      readonly marketId: Bytes32;
      readonly claimableUsdc: string;
      readonly payoutYesUsdc: string | null;
      /** when the bot first saw it claimable (ISO time; kept across restarts) */
      readonly claimableSince: string;
    }[];
  };
}

export interface RunReportInput {
  readonly startedAt: number;
  readonly stoppedAt: number;
  readonly paper: boolean;
  readonly stopReason: string;
  readonly exitCode: number;
  readonly process: ProcessState;
  readonly haltedBecause: string | null;
  readonly markets: readonly {
    readonly time: MarketTimeReport;
    /**
     * the market's share of the run, from the books: its fills, volume, fees and realised PnL (the
     * row's figures, so the rows add up to the totals); RunFigures.after from where its previous row ended
     */
    readonly ledger: RunMarketTrades;
    /** 1e-6 USDC: the books' unrealised PnL of the market now (a released market gone from the store: at its release) */
    readonly unrealised: bigint;
    /** 1e-6 shares */
    readonly net: number;
    /** the fills' PnL by source (1e-6 USDC), when the store attributes it */
    readonly attribution?: MarketAttribution;
    /** the market was retired during the run (rotation), for this reason */
    readonly retired?: string;
  }[];
  readonly rotation?: {
    readonly summary: {
      readonly active: number;
      readonly started: number;
      readonly retired: number;
      readonly refreshes: number;
      readonly refreshFailures: number;
    };
    readonly totals: { readonly started: Readonly<Record<string, number>>; readonly retired: Readonly<Record<string, number>> };
    readonly retiring: readonly { readonly marketId: string; readonly reason: string; readonly seconds: number; readonly stuck: boolean }[];
  };
  /** the claims tracker's figures (absent in paper mode) */
  readonly claims?: ClaimsSnapshot;
  /** the books' resolved-unclaimed markets (booksClaimable), shown in the claims block */
  readonly booksClaimable?: BooksClaimable;
  /** the account's books' figures (src/account/account.ts), 1e-6 USDC */
  readonly account?: AccountFigures;
  /** the run's trading from the books (RunFigures.totals); absent: the rows' sum */
  readonly run?: RunTrades;
  /** this run's orders by end (BotLedger.orderEndsOfRun); absent or null: not known */
  readonly orders?: OrderEnds | null;
}

/** The report's account block: the books' figures as exact decimal strings. */
export function accountBlock(f: AccountFigures): RunReportAccount {
  return {
    pnlUsdc: micro(f.total),
    realisedUsdc: micro(f.realised),
    unrealisedUsdc: micro(f.unrealised),
    feesUsdc: micro(f.fees),
    markedAt: f.markedAt === null ? null : new Date(f.markedAt).toISOString(),
  };
}

/** The label of the row that carries the run's fills no market row shows. */
export const UNLISTED = '(markets not listed)';

export function buildRunReport(i: RunReportInput): RunReport {
  let fills = 0;
  let volume = 0n;
  let fees = 0n;
  let realised = 0n;
  let unrealised = 0n;
  const markets = i.markets.map((m): RunReportMarket => {
    const vol = m.ledger.volume;
    fills += m.ledger.fills;
    volume += vol;
    fees += m.ledger.fees;
    // the run's realised PnL in this market, as its fills, volume and fees: the books' (so the rows
    // add up to the totals on a ledger with history too); unrealised is the position held now
    realised += m.ledger.realised;
    unrealised += m.unrealised;
    const notQuoting = Object.entries(m.time.states)
      .map(([s, ms]) => ({ state: s as HealthState, seconds: Math.round((ms ?? 0) / 100) / 10 }))
      .filter((x) => x.state !== 'quoting' && x.seconds > 0)
      .sort((a, b) => b.seconds - a.seconds);
    return {
      market: m.time.label,
      marketId: m.time.marketId,
      fills: m.ledger.fills,
      volumeShares: micro(m.ledger.shares),
      volumeUsdc: micro(vol),
      feesUsdc: micro(m.ledger.fees),
      realisedPnlUsdc: micro(m.ledger.realised),
      unrealisedPnlUsdc: micro(m.unrealised),
      positionShares: micro(m.net),
      quotingShare: m.time.observedMs > 0 ? Math.round((m.time.liveMs / m.time.observedMs) * 10_000) / 10_000 : 0,
      observedSeconds: Math.round(m.time.observedMs / 100) / 10,
      notQuoting,
      ...(m.attribution
        ? {
            pnlAttributionUsdc: {
              spreadCapture: micro(m.attribution.spreadCapture),
              inventory: micro(m.attribution.inventory),
              fees: micro(m.attribution.fees),
              resolution: micro(m.attribution.resolution),
              total: micro(m.attribution.total),
            },
          }
        : {}),
      ...(m.retired ? { retired: m.retired } : {}),
    };
  });
  const run = i.run;
  // what the books hold beyond the rows (fills of a market no row lists: another trader's on the
  // wallet, a row folded before a later fill; the unrealised PnL of positions in markets no row lists:
  // held from an earlier run, or of folded rows): one row, so the rows add up to the totals
  const unlistedUnrealised = i.account ? i.account.unrealised - unrealised : 0n;
  if (run && (run.fills !== fills || run.volume !== volume || run.fees !== fees || run.realised !== realised || unlistedUnrealised !== 0n)) {
    markets.push({
      market: UNLISTED,
      marketId: ('0x' + '0'.repeat(64)) as Bytes32,
      fills: run.fills - fills,
      volumeShares: micro(0),
      volumeUsdc: micro(run.volume - volume),
      feesUsdc: micro(run.fees - fees),
      realisedPnlUsdc: micro(run.realised - realised),
      unrealisedPnlUsdc: micro(unlistedUnrealised),
      positionShares: micro(0),
      quotingShare: 0,
      observedSeconds: 0,
      notQuoting: [],
    });
  }
  const rot = i.rotation;
  return {
    startedAt: new Date(i.startedAt).toISOString(),
    stoppedAt: new Date(i.stoppedAt).toISOString(),
    seconds: Math.round((i.stoppedAt - i.startedAt) / 100) / 10,
    paper: i.paper,
    stopReason: i.stopReason,
    exitCode: i.exitCode,
    process: i.process,
    haltedBecause: i.haltedBecause,
    markets,
    ...(rot
      ? {
          rotation: {
            active: rot.summary.active,
            started: rot.summary.started,
            retired: rot.summary.retired,
            startedBy: rot.totals.started,
            retiredBy: rot.totals.retired,
            refreshes: rot.summary.refreshes,
            refreshFailures: rot.summary.refreshFailures,
            retiringAtStop: rot.retiring.map((x) => ({ marketId: x.marketId, reason: x.reason, seconds: Math.round(x.seconds * 10) / 10, stuck: x.stuck })),
          },
        }
      : {}),
    totals: run
      ? {
          fills: run.fills,
          volumeUsdc: micro(run.volume),
          feesUsdc: micro(run.fees),
          realisedPnlUsdc: micro(run.realised),
          unrealisedPnlUsdc: micro(i.account ? i.account.unrealised : unrealised),
        }
      : { fills, volumeUsdc: micro(volume), feesUsdc: micro(fees), realisedPnlUsdc: micro(realised), unrealisedPnlUsdc: micro(unrealised) },
    ...(i.account ? { account: accountBlock(i.account) } : {}),
    ...(i.claims ? { claims: claimsBlock(i.claims, i.booksClaimable) } : {}),
    ...(i.orders ? { orders: i.orders } : {}),
  };
}

function claimsBlock(c: ClaimsSnapshot, books: BooksClaimable | undefined): RunReportClaims {
  return {
    markets: c.markets.map((m) => ({
      marketId: m.marketId,
      state: m.state,
      payoutYesUsdc: m.payoutYes === null ? null : micro(m.payoutYes),
      payoutNoUsdc: m.payoutNo === null ? null : micro(m.payoutNo),
      yesShares: micro(m.yesShares),
      noShares: micro(m.noShares),
      claimableUsdc: micro(m.claimable),
    })),
    totalClaimableUsdc: micro(c.total),
    ...(books ? { books: { markets: books.markets.length, claimableUsdc: micro(books.total) } } : {}),
    reads: c.reads,
    readErrors: c.readErrors,
    ...(c.earlierSettled > 0 ? { earlierSettled: c.earlierSettled } : {}),
    ...(c.overdue.markets > 0
      ? {
          overdue: {
            afterHours: c.overdue.afterMs / 3_600_000,
            markets: c.overdue.markets,
            claimableUsdc: micro(c.overdue.total),
            largest: c.overdue.largest.map((m) => ({
              marketId: m.marketId,
              claimableUsdc: micro(m.claimable),
              payoutYesUsdc: m.payoutYes === null ? null : micro(m.payoutYes),
              claimableSince: new Date(m.claimableSince).toISOString(),
            })),
          },
        }
      : {}),
  };
}

const fit = (s: string): string => (s.length <= 120 ? s : `${s.slice(0, 119)}…`);
// 6 decimals for the JSON; cents for people (src/model/money-text.ts, as the terminal summary)
const usd = (s: string): string => usdCents(microOf(s));
/** a total and its parts in cents that add up as shown (the total rounded as it is) */
const usdSum = (total: string, parts: readonly string[]): { total: string; parts: string[] } =>
  usdCentsSumming(
    microOf(total),
    parts.map((p) => microOf(p)),
  );

export function formatRunReport(r: RunReport): string[] {
  const t = r.totals;
  // realised and unrealised shown as the account line shows them (summing to their total): the same figure
  // reads the same in both lines (3.166864 was 3.17 here and 3.16 there)
  const tParts = [microOf(t.realisedPnlUsdc), microOf(t.unrealisedPnlUsdc)];
  const tp = usdCentsSumming(tParts[0]! + tParts[1]!, tParts);
  const lines = [
    fit(
      `run report: ${r.seconds} s${r.paper ? ' [paper]' : ''}, stopped by ${r.stopReason}, exit ${r.exitCode}${r.haltedBecause ? ` (halted: ${r.haltedBecause})` : ''}`,
    ),
    fit(`  total: fills ${t.fills}, volume ${usd(t.volumeUsdc)} USDC, fees ${usd(t.feesUsdc)}, realised ${tp.parts[0]}, unrealised ${tp.parts[1]} USDC`),
  ];
  const a = r.account;
  if (a) {
    // PnL = realised + unrealised, shown so that they add up (fees are inside realised)
    const s = usdSum(a.pnlUsdc, [a.realisedUsdc, a.unrealisedUsdc]);
    lines.push(
      fit(
        `  account: PnL ${s.total} USDC (realised ${s.parts[0]}, unrealised ${s.parts[1]}, fees ${usd(a.feesUsdc)}) since inception, marked ${a.markedAt ?? 'never'}`,
      ),
    );
  }
  // the run's orders by how they ended, as the ledger holds them (`ledger summary` orderEnds, the same count)
  if (r.orders) lines.push(fit(`  orders: ${orderEndsText(r.orders)}`));
  const rot = r.rotation;
  // a line when markets came or went during the run (not for the start-up set alone)
  if (rot && (rot.started > (rot.startedBy.startup ?? 0) || rot.retired > 0 || rot.retiringAtStop.length > 0 || rot.refreshFailures > 0)) {
    const by = (o: Readonly<Record<string, number>>): string =>
      Object.entries(o)
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ');
    const retiredBy = by(rot.retiredBy);
    lines.push(
      fit(
        `  rotation: ${rot.active} active at stop, ${rot.started} started (${by(rot.startedBy) || '-'}), ${rot.retired} retired${retiredBy ? ` (${retiredBy})` : ''}`,
      ),
    );
    if (rot.retiringAtStop.length > 0 || rot.refreshFailures > 0) {
      lines.push(fit(`    still retiring at stop ${rot.retiringAtStop.length} (cancelled by the stop), failed refreshes ${rot.refreshFailures}`));
    }
  }
  for (const m of r.markets) {
    if (m.market === UNLISTED) {
      lines.push(
        fit(
          `  ${m.market}: fills ${m.fills}, volume ${usd(m.volumeUsdc)} USDC, fees ${usd(m.feesUsdc)}, realised ${usd(m.realisedPnlUsdc)}, unrealised ${usd(m.unrealisedPnlUsdc)} USDC`,
        ),
      );
      continue;
    }
    const why = m.notQuoting.length ? m.notQuoting.map((n) => `${n.state} ${n.seconds}s`).join(', ') : '-';
    lines.push(
      fit(`  ${m.market}${m.retired ? ` (retired: ${m.retired})` : ''}`),
      fit(
        `    quoting ${(m.quotingShare * 100).toFixed(1)}%, fills ${m.fills}, volume ${usd(m.volumeUsdc)} USDC, fees ${usd(m.feesUsdc)}, realised ${usd(m.realisedPnlUsdc)}, unrealised ${usd(m.unrealisedPnlUsdc)} USDC`,
      ),
      fit(`    not quoting: ${why}`),
    );
    const a = m.pnlAttributionUsdc;
    if (a && m.fills > 0) {
      const s = usdSum(a.total, [a.spreadCapture, a.inventory, a.fees, a.resolution]);
      lines.push(fit(`    pnl by source: spread ${s.parts[0]}, inventory ${s.parts[1]}, fees ${s.parts[2]}, resolution ${s.parts[3]} = ${s.total} USDC`));
    }
  }
  const overdue = r.claims?.overdue;
  const books = r.claims?.books;
  if (r.claims && (r.claims.markets.length > 0 || overdue || (books && books.markets > 0))) {
    const earlier = r.claims.earlierSettled ?? 0;
    const resolved = r.claims.markets.length + earlier + (overdue?.markets ?? 0);
    const failed = r.claims.readErrors ? ` (${r.claims.readErrors} failed reads)` : '';
    lines.push(fit(`  after resolution: ${resolved} market(s) resolved, ${usd(r.claims.totalClaimableUsdc)} USDC claimable${failed}`));
    if (earlier > 0) lines.push(fit(`    (${earlier} earlier settled market(s), claimed or with nothing to claim, not listed)`));
    if (books && books.markets > 0)
      lines.push(
        fit(`    the books: ${books.markets} resolved market(s) held unclaimed, ${usd(books.claimableUsdc)} USDC to claim (ledger summary: claimable)`),
      );
    if (overdue) {
      const named = overdue.largest.length < overdue.markets ? `the largest ${overdue.largest.length}` : 'they are';
      const what = `${overdue.markets} market(s) claimable ${overdue.afterHours} h or more, not claimed by the venue`;
      lines.push(fit(`    overdue: ${what}, ${usd(overdue.claimableUsdc)} USDC: claim them; ${named}:`));
      for (const m of overdue.largest) lines.push(fit(`    ${m.marketId} ${usd(m.claimableUsdc)} USDC (claimable since ${m.claimableSince})`));
    }
    for (const m of r.claims.markets) {
      const pay = m.payoutYesUsdc === null ? 'payout unknown' : `YES pays ${usd(m.payoutYesUsdc)}, NO ${usd(m.payoutNoUsdc ?? '0.000000')}`;
      lines.push(fit(`    ${m.marketId.slice(0, 10)}… ${m.state}: ${usd(m.claimableUsdc)} USDC (${pay}; held YES ${usd(m.yesShares)}, NO ${usd(m.noShares)})`));
    }
  }
  return lines;
}
