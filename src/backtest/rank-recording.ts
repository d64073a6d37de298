/**
 * `rank:` entries in a backtest: the recording's markets are ranked once, at the rank time T, with the
 * live rank score (src/selection/score.ts: the same terms, transforms and weights) and the live
 * choice (src/selection/choose.ts: top N within the entry's capital; the first selection, so no
 * hysteresis), from what the recording holds before T only (no look-ahead into the replayed window):
 *
 *   T = max(window start, recording start + look-back)   (look-back: backtest.rankLookbackSeconds, 1 h)
 *
 * so when the window starts with the recording, its first look-back is the warm-up the ranking reads
 * and quoting starts at T (the report says so). The terms, from the rows in [T − L, T) (L the look-back)
 * and the book replayed up to T:
 *
 *   spread           YES best bid/ask of the book at T (the recorded best bid/ask when the book has no levels)
 *   depth            USDC within 5¢ of the touch, both sides, of the book at T
 *   volume           dropped (unsupported): the venue's lifetime volume is not in a recording
 *   volume24h        trade notional over L, scaled to 24 h (× 24 h / L)
 *   volatility       the YES price (book mid, else the last trade) sampled at 17 points over L (16 steps);
 *                    the std. dev. of its successive differences, scaled to the live history's
 *                    15-minute step by √(15 min / step)
 *   tradeRate        trades over L, scaled to one hour (× 1 h / L)
 *   timeToDeadline   the deadline of the market's last metadata event before T, when recorded
 *   oracleDisagreement  the last oracle probability before T against the mid at T, when recorded
 *   fee              the entry's feeBps against the spread at T, as live
 *
 * Candidates: the markets with at least one row before T and not taken by an earlier entry. A market
 * is eligible (status active) when its last metadata event before T says active or, without metadata,
 * when its recorded data goes on at or after T (a market whose data ends before T closed or resolved in
 * the recording). Every candidate is scored in full (there is no request budget in a recording).
 * Pre-filters a recording cannot apply are refused rather than guessed: `minVolume` (lifetime volume)
 * always, `category` when no market of the recording carries categories.
 */
import type { MarketConfig, RankTerm } from '../config/types.ts';
import { ConfigError } from '../model/errors.ts';
import { chooseRanked } from '../selection/choose.ts';
import type { TermDrop } from '../selection/gather.ts';
import { capitalOf, type RankReport, type RankTableRow } from '../selection/ranker.ts';
import { depthNearTouch, priceVolatilityCents, rankTerms, SCALES, scoreOf, type DropReason, type RankInputs, type RankTerms } from '../selection/score.ts';
import { RANK_TERMS } from '../config/types.ts';
import { createReplayState, replayBook } from './book-replay.ts';
import { KIND_TRADE, type Columns } from './recording/columns.ts';
import type { RecordingManifest } from './recording/format.ts';
import { windowRows, type SideEvent } from './replay-source.ts';

export const DEFAULT_RANK_LOOKBACK_MS = 3_600_000;
/** price samples over the look-back (17 points, 16 steps) */
const VOL_STEPS = 16;
/** the live price history's step ('1d' timeframe: 15 minutes) */
const LIVE_STEP_MS = 900_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

/** Why a term the weights enable has no value in a recording (for the report). */
export const RECORDING_TERM_NOTES: Readonly<Partial<Record<RankTerm, string>>> = {
  volume: "the venue's lifetime volume is not in a recording",
};

export interface RecordingRankInput {
  readonly cols: Columns;
  readonly manifest: RecordingManifest;
  readonly ticks: readonly number[];
  /** oracle and market events of the recording (any time; only those before T are read) */
  readonly side: readonly SideEvent[];
}

/** The ranking of a backtest, for the run, the summary and the report. */
export interface RecordingRanking {
  /** the rank time T, ms */
  readonly at: number;
  readonly lookbackMs: number;
  /** the window's start before the warm-up moved it to T (null: the window already started at T or later) */
  readonly movedFrom: number | null;
  /** one report per rank entry, as `bookmaker markets rank` prints them (requests = 0: no venue reads) */
  readonly reports: readonly RankReport[];
  /** lower-case ids each rank entry kept, by entry index */
  readonly kept: ReadonlyMap<number, ReadonlySet<string>>;
}

/** When the ranking happens: after a full look-back of the recording, and not before the window. */
export function rankTime(recordingStart: number, windowStart: number, lookbackMs: number): number {
  return Math.max(windowStart, recordingStart + lookbackMs);
}

interface MarketFigures {
  seen: boolean;
  after: boolean;
  trades: number;
  /** 1e-6 USDC */
  notional: number;
  lastTrade: number;
  samples: number[];
}

/** Refuse what a recording cannot rank faithfully, with the alternative. */
export function checkRankable(entries: readonly MarketConfig[], manifest: RecordingManifest, side: readonly SideEvent[]): void {
  const withCategories = side.some((e) => e.t === 'market' && (Array.isArray(e.meta.categories) || typeof e.meta.category === 'string'));
  for (const [i, m] of entries.entries()) {
    if (m.select.by !== 'rank') continue;
    const r = m.select.rank;
    if (r.minVolume > 0)
      throw new ConfigError(
        `markets[${i}]: rank.minVolume filters on the venue's lifetime volume, which a recording does not hold (${manifest.source}); remove minVolume for the backtest, or select the markets by id`,
      );
    if (r.category !== undefined && !withCategories)
      throw new ConfigError(
        `markets[${i}]: rank.category needs the markets' categories, and this recording (${manifest.source}) has no market metadata with categories; remove category for the backtest, or select the markets by id`,
      );
  }
}

/**
 * Rank every `rank:` entry over the recording at `at`. `claimedBefore(entry, id, name)` says whether an
 * entry before `entry` (id, slug, all, filter) already quotes the market; rank entries before it claim
 * what they kept.
 */
export function rankRecording(
  input: RecordingRankInput,
  entries: readonly MarketConfig[],
  at: number,
  lookbackMs: number,
  claimedBefore: (entry: number, id: string, name: string | undefined) => boolean,
): Omit<RecordingRanking, 'movedFrom'> {
  const { cols, manifest } = input;
  checkRankable(entries, manifest, input.side);
  const n = cols.markets.length;
  const from = at - lookbackMs;
  const step = lookbackMs / VOL_STEPS;
  const fig: MarketFigures[] = Array.from({ length: n }, () => ({ seen: false, after: false, trades: 0, notional: 0, lastTrade: 0, samples: [] }));
  const st = createReplayState(cols, input.ticks);
  // rows before T in time order (a recording's rows can step back a little; windowRows sorts only then)
  const before = windowRows(cols.lts, cols.rows, -Infinity, at);
  for (let i = 0; i < cols.rows; i++) if (cols.lts[i]! >= at) fig[cols.market[i]!]!.after = true;
  const yesPrice = (m: number): number => {
    const b = st.books[m]!;
    const bid = b.bestBid();
    const ask = b.bestAsk();
    if (bid > 0 && ask > 0 && ask > bid) return (bid + ask) / 2;
    const rb = st.bboBid[m]!;
    const ra = st.bboAsk[m]!;
    if (rb > 0 && ra > 0 && ra > rb) return (rb + ra) / 2;
    return fig[m]!.lastTrade;
  };
  let k = 0; // next sample point: from + k · step, k = 0 … VOL_STEPS (the last one is T itself)
  /** take the sample points before `t` (the state then holds every row before t) */
  const sampleBefore = (t: number): void => {
    while (k <= VOL_STEPS && from + k * step < t) {
      for (let m = 0; m < n; m++) {
        const p = yesPrice(m);
        if (p > 0) fig[m]!.samples.push(p);
      }
      k++;
    }
  };
  for (const r of before) {
    const t = cols.lts[r]!;
    sampleBefore(t);
    const m = cols.market[r]!;
    const f = fig[m]!;
    f.seen = true;
    if (cols.kind[r] === KIND_TRADE) {
      f.lastTrade = cols.price[r]!;
      if (t >= from) {
        f.trades++;
        f.notional += (cols.price[r]! * cols.size[r]!) / 1e6;
      }
    } else replayBook(cols, st, r, r + 1);
  }
  sampleBefore(Math.max(at, from + VOL_STEPS * step) + 1); // the last point, T itself (no row at or after T is applied)

  // metadata and oracle before T: the last of each per market
  const meta = new Map<string, Record<string, unknown>>();
  const oracle = new Map<string, number>();
  for (const e of [...input.side].sort((a, b) => a.lts - b.lts)) {
    if (e.lts >= at) continue;
    const id = e.m;
    if (e.t === 'market') meta.set(id, { ...(meta.get(id) ?? {}), ...e.meta });
    else oracle.set(id, e.probability / 1e6);
  }
  const names = new Map(manifest.markets.map((m) => [m.id, m.name]));

  const reports: RankReport[] = [];
  const kept = new Map<number, ReadonlySet<string>>();
  const keptBefore = (id: string): boolean => [...kept.values()].some((s) => s.has(id));
  for (const [ei, cfg] of entries.entries()) {
    if (cfg.select.by !== 'rank') continue;
    const s = cfg.select.rank;
    const rows: { id: string; marketId: string; name: string; status: string; score: number; terms: RankTerms; drops: TermDrop[] }[] = [];
    for (let m = 0; m < n; m++) {
      const f = fig[m]!;
      const marketId = cols.markets[m]!;
      const id = marketId;
      const name = names.get(id);
      if (!f.seen || keptBefore(id) || claimedBefore(ei, marketId, name)) continue;
      const md = meta.get(id);
      const status = typeof md?.status === 'string' ? md.status : f.after ? 'active' : 'ended';
      const b = st.books[m]!;
      let bid: number | null = b.bestBid() > 0 ? b.bestBid() : null;
      let ask: number | null = b.bestAsk() > 0 ? b.bestAsk() : null;
      if (bid === null && ask === null && (st.bboBid[m]! > 0 || st.bboAsk[m]! > 0)) {
        bid = st.bboBid[m]! > 0 ? st.bboBid[m]! : null;
        ask = st.bboAsk[m]! > 0 ? st.bboAsk[m]! : null;
      }
      const hasLevels = b.depth('bid') + b.depth('ask') > 0;
      const deadline = typeof md?.deadline === 'string' ? Date.parse(md.deadline) : NaN;
      const x: RankInputs = {
        bid,
        ask,
        mid: bid !== null && ask !== null ? Math.round((bid + ask) / 2) : null,
        depthUsdc: hasLevels ? depthNearTouch(b.levels('bid'), b.levels('ask')) : null,
        volume: null,
        volume24h: BigInt(Math.round((f.notional * DAY) / lookbackMs)),
        history: null,
        tradesLastHour: (f.trades * HOUR) / lookbackMs,
        msToDeadline: Number.isFinite(deadline) ? deadline - at : null,
        oracleProbability: oracle.get(id) ?? null,
        feeBps: s.feeBps,
      };
      const { terms: t0, bad } = rankTerms(x);
      const sigma = priceVolatilityCents(f.samples);
      const volatility = sigma === null ? null : ((c: number) => c / (c + SCALES.volatilityHalf))(sigma * Math.sqrt(LIVE_STEP_MS / step));
      const terms: RankTerms = { ...t0, volatility };
      const drops: TermDrop[] = [];
      for (const term of RANK_TERMS) {
        if (s.weights[term] === 0 || terms[term] !== null) continue;
        const reason: DropReason = RECORDING_TERM_NOTES[term] !== undefined ? 'unsupported' : bad.includes(term) ? 'bad' : 'missing';
        drops.push({ term, reason });
      }
      rows.push({ id, marketId, name: name ?? marketId, status, score: scoreOf(terms, s.weights), terms, drops });
    }
    const cap = capitalOf(s, cfg);
    const decisions = chooseRanked(
      rows.map((r) => ({ id: r.id, score: r.score, terms: r.terms, status: r.status, scored: true })),
      { top: s.top, minScore: s.minScore, perMarket: cap.perMarket, total: cap.total, enterMargin: s.enterMargin, minHoldMs: s.minHoldMs },
      { previous: undefined, enteredAt: new Map(), nowMs: at },
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    const table: RankTableRow[] = decisions
      .map((d) => ({ ...d, marketId: byId.get(d.id)!.marketId, name: byId.get(d.id)!.name, drops: byId.get(d.id)!.drops }))
      .sort(
        (a, b) =>
          Number(isKeptVerdict(b.verdict)) - Number(isKeptVerdict(a.verdict)) ||
          (a.place || Infinity) - (b.place || Infinity) ||
          b.score - a.score ||
          (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
      );
    reports.push({ entry: ei, rows: table, requests: 0, listTruncated: false, ...cap });
    kept.set(ei, new Set(table.filter((r) => isKeptVerdict(r.verdict)).map((r) => r.id)));
  }
  return { at, lookbackMs, reports, kept };
}

const isKeptVerdict = (v: string): boolean => v === 'selected' || v === 'kept' || v === 'held';

/** The ranking as the JSON summary gives it: per rank entry, the markets kept with their score and terms, and the terms dropped. */
export interface RankingSummary {
  readonly at: string;
  readonly lookbackSeconds: number;
  /** the window's start before the warm-up moved the replay to the rank time (null: not moved) */
  readonly windowMovedFrom: string | null;
  readonly entries: readonly {
    readonly entry: number;
    readonly candidates: number;
    readonly eligible: number;
    readonly selected: readonly { readonly marketId: string; readonly name: string; readonly score: number; readonly terms: RankTerms }[];
    /** enabled terms without a value, by reason, with how many candidates lacked them (and why a recording cannot give it, for unsupported ones) */
    readonly droppedTerms: readonly { readonly term: RankTerm; readonly reason: DropReason; readonly markets: number; readonly note?: string }[];
  }[];
}

export function rankingSummary(r: RecordingRanking): RankingSummary {
  return {
    at: new Date(r.at).toISOString(),
    lookbackSeconds: r.lookbackMs / 1000,
    windowMovedFrom: r.movedFrom === null ? null : new Date(r.movedFrom).toISOString(),
    entries: r.reports.map((rep) => ({
      entry: rep.entry,
      candidates: rep.rows.length,
      eligible: rep.rows.filter((x) => x.verdict !== 'ineligible').length,
      selected: rep.rows
        .filter((x) => r.kept.get(rep.entry)?.has(x.id) === true)
        .map((x) => ({ marketId: x.marketId, name: x.name, score: x.score, terms: x.terms })),
      droppedTerms: droppedTerms(rep).map((d) =>
        RECORDING_TERM_NOTES[d.term] !== undefined && d.reason === 'unsupported' ? { ...d, note: RECORDING_TERM_NOTES[d.term]! } : d,
      ),
    })),
  };
}

/** The ranking in a few lines for the terminal (stderr of `bookmaker backtest`). */
export function rankingText(s: RankingSummary): string {
  const out: string[] = [];
  for (const e of s.entries) {
    out.push(
      `rank: markets entry ${e.entry} ranked ${e.candidates} recorded market(s) (${e.eligible} eligible) at ${s.at} over a ${s.lookbackSeconds} s look-back${s.windowMovedFrom ? ` (the replay starts there, after the look-back warm-up; the window started at ${s.windowMovedFrom})` : ''}; selected ${e.selected.length}:`,
    );
    for (const m of e.selected) out.push(`  ${m.name}  score ${m.score.toFixed(3)}`);
    if (e.droppedTerms.length > 0)
      out.push(`  terms dropped: ${e.droppedTerms.map((d) => `${d.term} (${d.reason}${d.note ? `: ${d.note}` : ''}, ${d.markets} market(s))`).join(', ')}`);
  }
  return out.join('\n') + '\n';
}

/** The enabled terms no candidate of a report had, with why (for the report's note). */
export function droppedTerms(rep: RankReport): { term: RankTerm; reason: DropReason; markets: number }[] {
  const out = new Map<string, { term: RankTerm; reason: DropReason; markets: number }>();
  for (const r of rep.rows)
    for (const d of r.drops) {
      const key = `${d.term}:${d.reason}`;
      const o = out.get(key) ?? { term: d.term, reason: d.reason, markets: 0 };
      o.markets++;
      out.set(key, o);
    }
  return [...out.values()];
}
