/**
 * The compact live summary `bookmaker run` prints: per market its quotes (best own bid/ask), the
 * orders resting at the venue, fills (paper fills in --paper), position, PnL and its health state
 * (quoting, or the reason it is not), and its edge — the regime, the toxicity (decayed own markout,
 * ¢ per share) and the PnL attribution (spread capture, inventory, fees, resolution; USDC) — plus a
 * header line with totals. Redrawn in place on a TTY (the edge in a second block of per-market
 * rows, so every line stays within 120 columns); otherwise a header line and one line per market,
 * each at most 120 columns (logs and CI output stay readable; the market name gives way first).
 *
 *   const rows = summaryRows(store.state, marketIds, fills, stateOf?, now?)   // pure
 *   formatSummary(rows, header) → string[]                             // pure (the TTY table)
 *   formatSummaryLine(rows, header) → string                           // pure (not a TTY: lines ≤ 120 columns)
 *   const stop = startSummary({ clock, everyMs, write, tty, render })
 */
import type { Clock } from '../core/clock.ts';
import type { Bytes32 } from '../model/order.ts';
import { usdCents, usdCentsSumming } from '../model/money-text.ts';
import type { StoreState } from '../state/market-state.ts';
import { edgeView, marketAttribution, type MarketAttribution } from '../state/edge-view.ts';
import { marketPnl } from '../state/market-view.ts';
import type { Account } from '../account/account.ts';
import { toYesTerms } from '../strategy/to-orders.ts';
import { liveOrders } from '../health/health-model.ts';
import { isOrphanSlot } from '../orders/orphan-slot.ts';
import type { RotationSummary } from './rotation/market-rotation.ts';

export interface SummaryRow {
  readonly market: string;
  readonly bid: number | null;
  readonly ask: number | null;
  /** own orders resting at the venue (acknowledged; not creates in flight, not strangers being cancelled) */
  readonly orders: number;
  readonly fills: number;
  /** net YES shares, 1e-6 */
  readonly net: number;
  /** realised + unrealised, 1e-6 USDC */
  readonly pnl: bigint;
  readonly stream: string;
  /** health state: quoting, or why not (health-model.ts) */
  readonly state: string;
  /** the market's regime at `now` (src/state/regime.ts), '-' when the market is unknown */
  readonly regime: string;
  /** decayed own markout at the toxicity horizon, 1e-6 USDC per share (negative = picked off); null before any fill */
  readonly toxicity: number | null;
  /** PnL attribution, 1e-6 USDC, summing exactly to its total (src/state/edge-view.ts) */
  readonly attribution: MarketAttribution;
  /** the market's rank score when a `rank:` entry selected it (src/selection/), else null */
  readonly score: number | null;
}

const NO_ATTRIBUTION: MarketAttribution = { spreadCapture: 0n, inventory: 0n, fees: 0n, resolution: 0n, total: 0n };

/**
 * One row per market. `now` (ms) is when the regime and the decayed toxicity are read; the caller
 * passes its clock's time (the summary itself reads no clock). Without it the regime is read at the
 * store's last event, which is right for a finished run.
 */
export function summaryRows(
  state: StoreState,
  marketIds: readonly Bytes32[],
  fills: { get(marketId: string): number | undefined },
  stateOf: (marketId: Bytes32) => string | null = () => null,
  now?: number,
  scoreOf: (marketId: Bytes32) => number | null = () => null,
  books?: Account,
): SummaryRow[] {
  return marketIds.map((id) => {
    const m = state.markets.get(id);
    const health = stateOf(id) ?? '-';
    const score = scoreOf(id);
    if (!m)
      return {
        market: id.slice(0, 10),
        bid: null,
        ask: null,
        orders: 0,
        fills: 0,
        net: 0,
        pnl: 0n,
        stream: '-',
        state: health,
        regime: '-',
        toxicity: null,
        attribution: NO_ATTRIBUTION,
        score,
      };
    let bid: number | null = null;
    let ask: number | null = null;
    for (const o of m.orders.values()) {
      if (o.state !== 'working' || isOrphanSlot(o.slot)) continue;
      const y = toYesTerms(o.order.outcomeIndex, o.order.side, o.order.price);
      if (y.side === 'bid') bid = bid === null ? y.price : Math.max(bid, y.price);
      else ask = ask === null ? y.price : Math.min(ask, y.price);
    }
    // the account's books when given (the one PnL function), else the store's arithmetic
    const p = books ? books.marketPnl(m.marketId) : marketPnl(m);
    const edge = edgeView(m, now ?? state.ts);
    return {
      market: m.slug ?? id.slice(0, 10),
      bid,
      ask,
      orders: liveOrders(m),
      fills: fills.get(id) ?? 0,
      net: books ? books.holdingsOf(m.marketId).net : m.position.net,
      pnl: p.realised + p.unrealised,
      stream: m.streamState ?? '-',
      state: health,
      regime: edge.regime,
      toxicity: edge.toxicity,
      attribution: marketAttribution(m, books),
      score,
    };
  });
}

const cents = (p: number | null): string => (p === null ? '   -  ' : `${(p / 10_000).toFixed(1).padStart(5)}¢`);
/** USDC in cents, signed (src/model/money-text.ts, as the run report) */
const signed = (s: string): string => (s.startsWith('-') ? s : `+${s}`);
const usdc = (v: bigint): string => signed(usdCents(v));

/** USDC, signed: two decimals below 1 000, then thousands or millions with one (for the one-line form). */
const usdcShort = (v: bigint): string => {
  const n = Number(v) / 1e6;
  const a = Math.abs(n);
  const body = a < 1_000 ? a.toFixed(2) : a < 1e6 ? `${(a / 1e3).toFixed(1)}k` : `${(a / 1e6).toFixed(1)}M`;
  return `${n >= 0 ? '+' : '-'}${body}`;
};

/** A rank score, three decimals; '-' for a market no rank entry selected. */
const rankScore = (v: number | null): string => (v === null ? '-' : v.toFixed(3));

/** Toxicity in ¢ per share, one decimal, signed; '-' before any fill. */
const toxCents = (t: number | null): string => (t === null ? '-' : `${t >= 0 ? '+' : ''}${(t / 10_000).toFixed(1)}`);

/**
 * `accountPnl` (1e-6 USDC): the account's total from its books, markets released included; without
 * it the total is the sum of the rows.
 */
export function formatSummary(rows: readonly SummaryRow[], header: string, accountPnl?: bigint): string[] {
  const w = Math.min(32, Math.max(6, ...rows.map((r) => r.market.length)));
  const lines = [
    header,
    `${'market'.padEnd(w)}  ${'bid'.padStart(6)}  ${'ask'.padStart(6)}  ord  fills  ${'position'.padStart(9)}  ${'pnl USDC'.padStart(9)}  ${'stream'.padEnd(12)}  state`,
  ];
  // the rows' PnL and their total in cents that add up as shown (the total rounded as it is)
  const total = rows.reduce((a, r) => a + r.pnl, 0n);
  const shown = usdCentsSumming(
    total,
    rows.map((r) => r.pnl),
  );
  rows.forEach((r, i) => {
    lines.push(
      `${r.market.slice(0, w).padEnd(w)}  ${cents(r.bid)}  ${cents(r.ask)}  ${String(r.orders).padStart(3)}  ${String(r.fills).padStart(5)}  ${(r.net / 1e6).toFixed(2).padStart(9)}  ${signed(shown.parts[i]!).padStart(9)}  ${r.stream.padEnd(12)}  ${r.state}`,
    );
  });
  // the edge of each market, in a block of its own: regime, toxicity and the PnL attribution (USDC),
  // whose four components sum to the market's PnL of its fills
  // with rank entries, each ranked market's score (the `bookmaker markets rank` figure) ends its row
  const ranked = rows.some((r) => r.score !== null);
  lines.push(
    `${'market'.padEnd(w)}  ${'regime'.padEnd(11)}  ${'tox¢/sh'.padStart(7)}  ${'spread'.padStart(9)}  ${'inventory'.padStart(9)}  ${'fees'.padStart(8)}  ${'resolution'.padStart(10)}${ranked ? `  ${'rank'.padStart(6)}` : ''}`,
  );
  for (const r of rows) {
    const a = r.attribution;
    lines.push(
      `${r.market.slice(0, w).padEnd(w)}  ${r.regime.padEnd(11)}  ${toxCents(r.toxicity).padStart(7)}  ${usdc(a.spreadCapture).padStart(9)}  ${usdc(a.inventory).padStart(9)}  ${usdc(a.fees).padStart(8)}  ${usdc(a.resolution).padStart(10)}${ranked ? `  ${rankScore(r.score).padStart(6)}` : ''}`,
    );
  }
  lines.push(
    accountPnl === undefined ? `total pnl ${signed(shown.total)} USDC` : `account pnl ${usdc(accountPnl)} USDC (markets listed ${signed(shown.total)})`,
  );
  return lines.map(fit);
}

export const LINE_WIDTH = 120;
function fit(s: string): string {
  return s.length <= LINE_WIDTH ? s : `${s.slice(0, LINE_WIDTH - 1)}…`;
}

/**
 * For logs and pipes: the header with totals on one line (the run's fills and the account's PnL, from
 * the books, when given), then one line per market
 * (`name bid/ask¢ ord N fills N pos N pnl state | regime tox ¢ sifr S/I/F/R`: the attribution's
 * spread, inventory, fees and resolution in USDC), each at most 120
 * columns: the market name is shortened first, so the figures stay whole.
 */
export function formatSummaryLine(rows: readonly SummaryRow[], header: string, accountPnl?: bigint, runFills?: number): string {
  let total = 0n;
  let orders = 0;
  let fills = 0;
  const parts = rows.map((r) => {
    total += r.pnl;
    orders += r.orders;
    fills += r.fills;
    const q = (p: number | null): string => (p === null ? '-' : (p / 10_000).toFixed(0));
    const a = r.attribution;
    const tail = ` ${q(r.bid)}/${q(r.ask)}¢ ord ${r.orders} fills ${r.fills} pos ${(r.net / 1e6).toFixed(0)} ${usdcShort(r.pnl)} ${r.state} | ${r.regime} tox ${toxCents(r.toxicity)}¢ sifr ${usdcShort(a.spreadCapture)}/${usdcShort(a.inventory)}/${usdcShort(a.fees)}/${usdcShort(a.resolution)}${r.score !== null ? ` rank ${rankScore(r.score)}` : ''}`;
    const room = Math.max(6, Math.min(40, LINE_WIDTH - 2 - tail.length));
    return fit(`  ${r.market.slice(0, room)}${tail}`);
  });
  // the header's fills are the run's over every market (released ones too: src/account/run-figures.ts) when given
  return [fit(`${header} | orders ${orders} fills ${runFills ?? fills} pnl ${usdc(accountPnl ?? total)} USDC`), ...parts].join('\n');
}

export interface SummaryPrinter {
  clock: Clock;
  everyMs: number;
  write: (s: string) => void;
  /** redraw in place (ANSI) instead of appending */
  tty: boolean;
  /** the table (redrawn on a TTY) */
  render: () => string[];
  /** the single line printed when not on a TTY (default: the table's lines joined) */
  renderLine?: () => string;
  /**
   * On a TTY: the terminal shared with the logs (live-terminal.ts), so log lines print above the
   * table and the table is redrawn below them. Without it the table redraws itself in place.
   */
  terminal?: { frame(lines: readonly string[]): void; release(): void };
}

/** Print the summary every `everyMs`; returns a stop function that prints one last time. */
export function startSummary(p: SummaryPrinter): () => void {
  let drawn = 0;
  let cancel: () => void = () => undefined;
  const draw = (): void => {
    const lines = p.tty || !p.renderLine ? p.render() : [];
    if (p.tty && p.terminal) {
      p.terminal.frame(lines);
    } else if (p.tty) {
      // move up over the previous frame and clear it, so the table stays in place
      const up = drawn > 0 ? `\x1b[${drawn}A` : '';
      p.write(`${up}${lines.map((l) => `\x1b[2K${l}`).join('\n')}\n`);
      drawn = lines.length;
    } else {
      p.write((p.renderLine ? p.renderLine() : lines.join('\n')) + '\n');
    }
  };
  const loop = (): void => {
    draw();
    cancel = p.clock.setTimeout(loop, p.everyMs);
  };
  cancel = p.clock.setTimeout(loop, Math.min(p.everyMs, 1000));
  return () => {
    cancel();
    draw();
    p.terminal?.release();
  };
}

/**
 * Market rotation's line of the summary, e.g.
 * `rotation: 12 active, +3 started, −2 retired (resolved 2) in the last 10 min, 1 retiring`.
 * Null when rotation has nothing to say (refresh off and nothing retired or retiring).
 */
export function formatRotationLine(
  s: Pick<
    RotationSummary,
    'active' | 'retiring' | 'stuck' | 'windowMs' | 'startedInWindow' | 'retiredInWindow' | 'retiredByReason' | 'retired' | 'lastRefreshError'
  >,
  refreshing: boolean,
): string | null {
  if (!refreshing && s.retired === 0 && s.retiring === 0) return null;
  const reasons = Object.entries(s.retiredByReason)
    .filter(([, n]) => (n ?? 0) > 0)
    .map(([r, n]) => `${r} ${n}`)
    .join(', ');
  const minutes = Math.round(s.windowMs / 60_000);
  let line = `rotation: ${s.active} active, +${s.startedInWindow} started, −${s.retiredInWindow} retired${reasons ? ` (${reasons})` : ''} in the last ${minutes} min`;
  if (s.retiring > 0) line += `, ${s.retiring} retiring${s.stuck > 0 ? ` (${s.stuck} stuck)` : ''}`;
  if (s.lastRefreshError) line += `, refresh failing: ${s.lastRefreshError}`;
  return fit(line);
}
