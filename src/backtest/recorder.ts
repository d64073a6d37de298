/**
 * The recorder behind `bookmaker record`: for each market, the YES book stream (snapshots, deltas
 * and trades, through src/exchange/stream), the market's metadata, its oracle and its activity
 * (polled; activity items de-duplicated by id, or by content when they have none), written in
 * the recording format (./recording/format.ts) by a RecordingWriter (rotation by size and time; a
 * restart appends new files to the same recording). Every event carries the venue timestamp (`vts`)
 * and the local receive time (`lts`, from the injected clock), in integer units and YES terms.
 * On stop the writer is closed and the binary columns (book.cols) are rebuilt from every file, so a
 * backtest can replay the recording at full speed.
 *
 * With `flow` (a local exchange in the same process, src/sim/flow-tap.ts) the recording also gets
 * the venue's drop copy: the book of everybody but the recorded bot (`xbook`) and the incoming taker
 * orders (`taker`), in the engine's own order, and the bot's own quotes and fills as the venue
 * booked them (`ownbook`, `ownfill`: the check a replay is compared with). A backtest then replays exactly what the bot traded
 * against — the others' liquidity with its own simulated orders in the bot's place, and each
 * taker's order matched against both — instead of inferring it from the public stream, which
 * carries the bot's own quotes and fills as if they were somebody else's.
 *
 *   const rec = await startRecorder({ baseUrl, markets: [id], out: 'recordings/x' });
 *   ...
 *   const manifest = await rec.stop();
 */
import type { Subscription } from 'rxjs';
import { systemClock, type Clock } from '../core/clock.ts';
import { silentLogger, type Logger } from '../core/logger.ts';
import { createVenueClient } from '../exchange/venue-client.ts';
import { VenueError } from '../exchange/client/errors.ts';
import { createBookStream } from '../exchange/stream/book-stream.ts';
import { venueSnapshotFetcher } from '../exchange/stream/venue-snapshot-fetcher.ts';
import type { Bytes32 } from '../model/order.ts';
import type { BookEvent } from '../model/stream.ts';
import type { FlowEvent, FlowTapOptions } from '../sim/flow-tap.ts';
import { ONE } from '../model/units.ts';
import { toColumns, writeColumns } from './recording/columns.ts';
import type { LevelPair, RecordedEvent, RecordingManifest } from './recording/format.ts';
import { readEvents } from './recording/reader.ts';
import { RecordingWriter } from './recording/writer.ts';

export interface RecorderOptions {
  readonly baseUrl: string;
  readonly apiKey?: string;
  readonly markets: readonly Bytes32[];
  readonly out: string;
  /** price tick written to the manifest for each market (1e-6 USDC; default 1¢) */
  readonly tick?: number;
  readonly depth?: number;
  readonly metadataPollMs?: number;
  readonly oraclePollMs?: number;
  readonly activityPollMs?: number;
  readonly rotateBytes?: number;
  readonly rotateMs?: number;
  readonly clock?: Clock;
  readonly logger?: Logger;
  /**
   * The venue's drop copy, when the venue is a local exchange in this process: `tap` is its
   * `tapFlow`, `exclude` the address of the bot whose own orders are left out of it.
   */
  readonly flow?: { readonly tap: (o: FlowTapOptions, sink: (e: FlowEvent) => void) => () => void; readonly exclude?: string };
}

export interface RecorderStats {
  book: number;
  trades: number;
  market: number;
  oracle: number;
  activity: number;
  /** drop-copy events: others' book changes and taker orders */
  flow: number;
  errors: number;
}

export interface Recorder {
  readonly stats: RecorderStats;
  stop(): Promise<RecordingManifest>;
}

const levels = (ls: readonly { price: number; size: number }[]): LevelPair[] => ls.map((l) => [l.price, l.size]);
const mirror = (ls: readonly { price: number; size: number }[]): LevelPair[] => ls.map((l) => [ONE - l.price, l.size]);

type Levels = readonly { price: number; size: number }[];

/** A book snapshot or delta in YES terms (a NO book's bids are YES asks at 1 − p). */
function bookRecord(m: string, venueTs: number, lts: number, seq: number, snap: boolean, outcomeIndex: number, bids: Levels, asks: Levels): RecordedEvent {
  const yes = outcomeIndex === 1;
  return {
    t: 'book',
    m,
    vts: venueTs || lts,
    lts,
    seq,
    ...(snap ? { snap: true } : {}),
    b: yes ? levels(bids) : mirror(asks),
    a: yes ? levels(asks) : mirror(bids),
  };
}

/**
 * A stream event → a recorded event in YES terms (null for statuses: connection states, and market
 * statuses, which the recording takes from its metadata poll).
 */
export function recordBookEvent(e: BookEvent): RecordedEvent | null {
  if (e.type === 'status' || e.type === 'market-status') return null;
  if (e.type === 'snapshot') {
    const b = e.book;
    return bookRecord(b.marketId, b.venueTs, e.localTs, e.seq, true, b.outcomeIndex, b.bids, b.asks);
  }
  if (e.type === 'delta') return bookRecord(e.marketId, e.venueTs, e.localTs, e.seq, false, e.outcomeIndex, e.bids, e.asks);
  const yes = e.outcomeIndex === 1;
  return {
    t: 'trade',
    m: e.marketId,
    vts: e.venueTs || e.localTs,
    lts: e.localTs,
    p: yes ? e.price : ONE - e.price,
    s: e.size,
    side: yes ? e.takerSide : e.takerSide === 'buy' ? 'sell' : 'buy',
  };
}

export async function startRecorder(o: RecorderOptions): Promise<Recorder> {
  const clock = o.clock ?? systemClock;
  const log = (o.logger ?? silentLogger).child({ component: 'recorder' });
  const client = createVenueClient({ baseUrl: o.baseUrl, ...(o.apiKey ? { apiKey: o.apiKey } : {}), logger: o.logger ?? silentLogger });
  const writer = new RecordingWriter({
    dir: o.out,
    source: o.baseUrl,
    markets: o.markets.map((id) => ({ id, tick: o.tick ?? 10_000 })),
    ...(o.rotateBytes ? { rotateBytes: o.rotateBytes } : {}),
    ...(o.rotateMs ? { rotateMs: o.rotateMs } : {}),
    now: () => clock.now(),
  });
  const stats: RecorderStats = { book: 0, trades: 0, market: 0, oracle: 0, activity: 0, flow: 0, errors: 0 };
  const write = (e: RecordedEvent): void => {
    if (e.t === 'book') stats.book++;
    else if (e.t === 'trade') stats.trades++;
    else if (e.t === 'market') stats.market++;
    else if (e.t === 'oracle') stats.oracle++;
    else if (e.t === 'activity') stats.activity++;
    else if (e.t === 'xbook' || e.t === 'taker' || e.t === 'ownbook' || e.t === 'ownfill') stats.flow++;
    writer.write(e);
  };
  const subs: Subscription[] = [];
  const timers: (() => void)[] = [];
  let stopped = false;

  const pollMetadata = async (id: Bytes32): Promise<void> => {
    try {
      const m = await client.markets.get(id);
      if (stopped) return;
      const now = clock.now();
      write({
        t: 'market',
        m: id,
        vts: now,
        lts: now,
        meta: { status: m.status, deadline: m.deadline, slug: m.slug, question: m.question, outcome: m.outcome, resolutionStatus: m.resolutionStatus },
      });
      // the manifest names the market, so reports show names rather than ids
      const name = typeof m.slug === 'string' && m.slug ? m.slug : typeof m.question === 'string' ? m.question : '';
      if (name) writer.nameMarket(id, name);
    } catch (err) {
      stats.errors++;
      log.warn({ marketId: id, err: (err as Error).message }, 'metadata poll failed');
    }
  };
  // The last oracle quote written per market: the poll re-reads the same quote until a new one
  // completes, and the live oracle feed (src/feeds/oracle-feed.ts) reports each quote once, so the
  // recording must too — a replay turns every recorded oracle event into an update for the bot.
  const lastOracle = new Map<string, string>();
  const pollOracle = async (id: Bytes32): Promise<void> => {
    try {
      const q = await client.markets.latestOracleQuote(id);
      if (stopped || !q || q.status !== 'completed' || q.probability === null) return;
      const now = clock.now();
      const vts = Date.parse(q.completedAt ?? q.createdAt);
      const p = q.probability <= 1 ? q.probability : q.probability / 100;
      const e: RecordedEvent = {
        t: 'oracle',
        m: id,
        vts: Number.isFinite(vts) ? vts : now,
        lts: now,
        probability: Math.round(Math.min(1, Math.max(0, p)) * 1e6),
        confidence: q.confidence,
      };
      const sig = `${q.id}|${e.vts}|${e.probability}|${e.confidence}`;
      if (lastOracle.get(id) === sig) return;
      lastOracle.set(id, sig);
      write(e);
    } catch (err) {
      // a market nobody has asked the oracle about answers 404: no quote yet, not a failure
      if (err instanceof VenueError && err.status === 404) return;
      stats.errors++;
      log.debug({ marketId: id, err: (err as Error).message }, 'oracle poll failed');
    }
  };
  const since = new Date(clock.now()).toISOString();
  const seen = new Set<string>();
  const seenOrder: string[] = [];
  const pollActivity = async (id: Bytes32): Promise<void> => {
    try {
      const page = await client.activity.market(id, { startTime: since, limit: 100 });
      if (stopped) return;
      const now = clock.now();
      for (const it of page.activity) {
        const d = it.data;
        const key = `${id}:${typeof d.id === 'string' || typeof d.id === 'number' ? d.id : JSON.stringify(d)}`;
        if (seen.has(key)) continue;
        seen.add(key);
        seenOrder.push(key);
        if (seenOrder.length > 50_000) seen.delete(seenOrder.shift()!);
        const vts = it.timestamp === null ? NaN : Number.isFinite(Number(it.timestamp)) ? Number(it.timestamp) : Date.parse(it.timestamp);
        write({ t: 'activity', m: id, vts: Number.isFinite(vts) && vts >= 0 ? Math.round(vts) : now, lts: now, item: d });
      }
    } catch (err) {
      stats.errors++;
      log.debug({ marketId: id, err: (err as Error).message }, 'activity poll failed');
    }
  };
  // One pending timer per poll loop: each loop keeps its slot in `timers` and replaces the cancel
  // function there (pushing a new one per round grew the list for as long as the recording ran).
  const every = (ms: number, f: () => void): void => {
    const slot = timers.length;
    timers.push(() => undefined);
    const loop = (): void => {
      if (stopped) return;
      f();
      timers[slot] = clock.setTimeout(loop, ms);
    };
    loop();
  };

  for (const id of o.markets) {
    const stream = createBookStream({
      baseUrl: o.baseUrl,
      marketId: id,
      outcomeIndex: 1,
      depth: o.depth ?? 50,
      ...(o.apiKey ? { apiKey: o.apiKey } : {}),
      fetchSnapshot: venueSnapshotFetcher(client, id, 1, o.depth ?? 50),
      clock,
      logger: o.logger ?? silentLogger,
    });
    subs.push(
      stream.events$.subscribe((e) => {
        const r = recordBookEvent(e);
        if (r && !stopped) write(r);
      }),
    );
    every(o.metadataPollMs ?? 60_000, () => void pollMetadata(id));
    every(o.oraclePollMs ?? 30_000, () => void pollOracle(id));
    every(o.activityPollMs ?? 2_000, () => void pollActivity(id));
  }

  // The drop copy arrives synchronously, event by event, while the venue runs one command; the venue's
  // stream sends that command's level changes as one message (src/sim/engine-events.ts coalesces them
  // per microtask). Every row of one synchronous burst gets the same local time, so a replay delivers
  // them to the bot as one instant (src/backtest/run-backtest.ts botTime), never half a command: the
  // clock could otherwise tick between two rows of one maker's cancel-and-replace, and the replayed bot
  // would quote on a book the live one never saw.
  let burstLts: number | null = null;
  const burstTime = (): number => {
    if (burstLts === null) {
      burstLts = clock.now();
      queueMicrotask(() => {
        burstLts = null;
      });
    }
    return burstLts;
  };
  const stopFlow = o.flow
    ? o.flow.tap({ markets: o.markets, ...(o.flow.exclude ? { exclude: o.flow.exclude } : {}) }, (e) => {
        if (stopped) return;
        const lts = burstTime();
        if (e.type === 'book') write({ t: 'xbook', m: e.marketId, vts: e.atMs, lts, ...(e.snap ? { snap: true as const } : {}), b: e.bids, a: e.asks });
        else if (e.type === 'own')
          write({
            t: 'ownbook',
            m: e.marketId,
            vts: e.atMs,
            lts,
            b: e.side === 'bid' ? [[e.price, e.size]] : [],
            a: e.side === 'ask' ? [[e.price, e.size]] : [],
          });
        else if (e.type === 'taker') write({ t: 'taker', m: e.marketId, vts: e.atMs, lts, p: e.limit, s: e.size, side: e.side });
        else if (e.type === 'fill') write({ t: 'ownfill', m: e.marketId, vts: e.atMs, lts, p: e.price, s: e.size, side: e.side, maker: e.maker });
      })
    : () => undefined;

  return {
    stats,
    async stop() {
      stopped = true;
      stopFlow();
      for (const s of subs) s.unsubscribe();
      for (const t of timers) t();
      // counted so a replay knows it must read the JSONL for them (columns carry book and trades only)
      writer.setStats({
        bookEvents: stats.book,
        trades: stats.trades,
        marketEvents: stats.market,
        oracleEvents: stats.oracle,
        activityEvents: stats.activity,
        ...(o.flow ? { flowEvents: stats.flow } : {}),
      });
      const manifest = await writer.close();
      await client.close();
      const all = { ...manifest.stats };
      // a resumed recording counts earlier sessions' side events too: recount from the files while the
      // columns are built (streamed: a long recording's events are never all in memory at once; the
      // columns skip side events themselves)
      let market = 0;
      let oracle = 0;
      const counted = function* (): Generator<RecordedEvent> {
        for (const e of readEvents(o.out)) {
          if (e.t === 'market') market++;
          else if (e.t === 'oracle') oracle++;
          yield e;
        }
      };
      writeColumns(
        o.out,
        toColumns(
          counted(),
          manifest.markets.map((m) => m.id),
        ),
      );
      all.marketEvents = market;
      all.oracleEvents = oracle;
      const finalWriter = new RecordingWriter({ dir: o.out, source: o.baseUrl });
      finalWriter.setStats(all);
      return finalWriter.close();
    },
  };
}
