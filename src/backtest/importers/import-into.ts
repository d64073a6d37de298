/**
 * `bookmaker import` into a folder, idempotently. Importing into a folder that already holds files
 * used to add a second events file beside the first (the manifest listed both and a backtest replayed
 * every row twice), so:
 * - a new or empty folder: imported as before;
 * - a folder with anything in it: refused, naming what is there and the two ways on;
 * - `force`: the recording in it is replaced. The new one is built in a sibling folder first, so a
 *   failed import leaves the old recording untouched; only the recording's own files are replaced, and
 *   a folder holding anything else is refused rather than emptied;
 * - `append`: only for sources whose format can be joined (the Kalshi trade tape: a trade print means
 *   the same whenever it is read), and only onto a recording of the same source. The events already in
 *   the recording are not added again: the new file's events are matched against the recording's as a
 *   multiset (a tape can hold identical prints in the same millisecond, so each copy in the recording
 *   absorbs one copy of the new file, and extra copies are new prints).
 */
import { existsSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { BookmakerError } from '../../model/errors.ts';
import type { RecordedEvent, RecordedMarket } from '../recording/format.ts';
import { readEvents, readManifest } from '../recording/reader.ts';
import { toColumns, writeColumns } from '../recording/columns.ts';
import { importBinance } from './binance.ts';
import { importKalshi } from './kalshi.ts';
import { importPolymarket, writeAll, type ImportResult } from './polymarket.ts';
import { makeFolders } from '../../core/make-folders.ts';

export const IMPORT_SOURCES = ['polymarket', 'kalshi', 'binance'] as const;
export type ImportSource = (typeof IMPORT_SOURCES)[number];
export type ImportMode = 'new' | 'force' | 'append';

const IMPORTERS: Record<ImportSource, (path: string, out: string) => Promise<ImportResult>> = {
  polymarket: importPolymarket,
  kalshi: importKalshi,
  binance: importBinance,
};

/** The recording `source` each importer writes into the manifest (append checks it). */
const SOURCE_NAME: Record<ImportSource, string> = {
  polymarket: 'polymarket-tickscope',
  kalshi: 'kalshi-kxinx-trades',
  binance: 'binance-hftbacktest',
};

/** Why a source cannot be appended to (null: it can). */
const NOT_APPENDABLE: Record<ImportSource, string | null> = {
  polymarket: 'the Polymarket capture is book deltas without snapshots, so a second capture cannot be joined to the book state of the first',
  binance: 'the Binance import rebuilds each book from its own capture (REST snapshot, then diffs in sequence), so two captures cannot be joined into one book',
  kalshi: null,
};

export const canAppend = (source: ImportSource): boolean => NOT_APPENDABLE[source] === null;

/** The files a recording consists of; `--force` replaces these and nothing else. */
const RECORDING_FILE = /^(manifest\.json(\.tmp)?|events-\d{6}\.jsonl\.gz|book\.cols)$/;

export interface ImportIntoOptions {
  mode?: ImportMode;
  /** also write book.cols (default true) */
  columns?: boolean;
}

export interface ImportIntoResult extends ImportResult {
  mode: ImportMode;
  /** what was done: 'new' for a new or empty folder whatever was asked */
  previousEvents?: number;
  duplicatesSkipped?: number;
}

function refuse(message: string): never {
  throw new BookmakerError('BAD_INPUT', message);
}

function listFolder(out: string): string[] | null {
  if (!existsSync(out)) return null;
  if (!statSync(out).isDirectory()) refuse(`--out ${out}: is a file, not a folder`);
  return readdirSync(out);
}

function describe(out: string, names: string[]): string {
  if (names.includes('manifest.json')) {
    try {
      const m = readManifest(out);
      const files = names.filter((n) => /^events-\d{6}\.jsonl\.gz$/.test(n)).length;
      return `holds a recording of ${m.source} (${m.markets.length} markets, ${files} events file${files === 1 ? '' : 's'})`;
    } catch {
      // fall through: an unreadable manifest is described by its file names
    }
  }
  const shown = names.slice(0, 5).join(', ') + (names.length > 5 ? `, … (${names.length} entries)` : '');
  return `is not empty (${shown})`;
}

/** Run the importer into `dir`, then (with `columns`) write the binary columns of what it wrote. */
async function importWithColumns(source: ImportSource, path: string, dir: string, columns: boolean): Promise<ImportResult> {
  const res = await IMPORTERS[source](path, dir);
  if (columns)
    writeColumns(
      dir,
      toColumns(
        readEvents(dir),
        readManifest(dir).markets.map((m) => m.id),
      ),
    );
  return res;
}

async function importToTemp(source: ImportSource, path: string, out: string, columns: boolean): Promise<{ dir: string; res: ImportResult }> {
  const parent = dirname(out);
  makeFolders(parent);
  const dir = mkdtempSync(join(parent, `.${basename(out)}.import-`));
  try {
    const res = await importWithColumns(source, path, dir, columns);
    return { dir, res };
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

/** Replace the recording files of `out` by those of `fresh` (same filesystem: renames), then drop `fresh`. */
function swapIn(fresh: string, out: string): void {
  for (const n of readdirSync(out)) if (RECORDING_FILE.test(n)) rmSync(join(out, n), { force: true });
  // events files first, the manifest last: a reader never sees a manifest without its files
  const names = readdirSync(fresh).sort((a, b) => Number(a === 'manifest.json') - Number(b === 'manifest.json'));
  for (const n of names) renameSync(join(fresh, n), join(out, n));
  rmSync(fresh, { recursive: true, force: true });
}

const keyOf = (e: RecordedEvent): string => JSON.stringify(e);

/**
 * Events of `add` that `have` does not already hold, as a multiset: each event of `have` absorbs one
 * equal event of `add`. Returns the new events in their order and the number skipped.
 */
export function newEvents(have: Iterable<RecordedEvent>, add: readonly RecordedEvent[]): { fresh: RecordedEvent[]; skipped: number } {
  const count = new Map<string, number>();
  for (const e of have) {
    const k = keyOf(e);
    count.set(k, (count.get(k) ?? 0) + 1);
  }
  const fresh: RecordedEvent[] = [];
  let skipped = 0;
  for (const e of add) {
    const k = keyOf(e);
    const n = count.get(k) ?? 0;
    if (n > 0) {
      count.set(k, n - 1);
      skipped++;
    } else fresh.push(e);
  }
  return { fresh, skipped };
}

/** Import `path` (a data set of `source`) into the recording folder `out` under the rules above. */
export async function importInto(source: ImportSource, path: string, out: string, o: ImportIntoOptions = {}): Promise<ImportIntoResult> {
  const mode = o.mode ?? 'new';
  const columns = o.columns !== false;
  if (mode === 'append' && !canAppend(source)) {
    refuse(`--append: not supported for ${source}: ${NOT_APPENDABLE[source]}. Use --force to replace the recording, or import into another folder`);
  }
  const names = listFolder(out);
  const empty = names === null || names.length === 0;

  if (mode === 'new' || empty) {
    if (!empty) {
      const ways = canAppend(source)
        ? 'Use --force to replace it, or --append to add only the events it does not hold yet'
        : 'Use --force to replace it, or choose another folder';
      refuse(`--out ${out}: ${describe(out, names!)}; importing into it again would add a second copy of every event. ${ways}`);
    }
    makeFolders(out);
    const res = await importWithColumns(source, path, out, columns);
    return { ...res, mode: 'new' };
  }

  const foreign = names!.filter((n) => !RECORDING_FILE.test(n));
  if (foreign.length > 0) {
    refuse(
      `--out ${out}: holds files that are not part of a recording (${foreign.slice(0, 5).join(', ')}${foreign.length > 5 ? ', …' : ''}); --${mode} only touches a recording folder, so nothing was changed`,
    );
  }

  if (mode === 'force') {
    const { dir, res } = await importToTemp(source, path, out, columns);
    swapIn(dir, out);
    return { ...res, mode };
  }

  // append
  const manifest = readManifest(out);
  if (manifest.source !== SOURCE_NAME[source]) {
    refuse(
      `--append: ${out} holds a recording of ${manifest.source}, not of ${SOURCE_NAME[source]}; appending would mix two data sets. Use --force to replace it, or another folder`,
    );
  }
  const previous = [...readEvents(out)];
  const { dir: added, res } = await importToTemp(source, path, out, false);
  let merged: string | undefined;
  try {
    const { fresh, skipped } = newEvents(previous, [...readEvents(added)]);
    // stable by venue time: on equal times the recording's events keep their place before the new ones
    const all = [...previous, ...fresh].sort((a, b) => a.vts - b.vts);
    const markets: RecordedMarket[] = [...manifest.markets];
    for (const m of readManifest(added).markets) if (!markets.some((x) => x.id === m.id)) markets.push(m);
    const parent = dirname(out);
    merged = mkdtempSync(join(parent, `.${basename(out)}.append-`));
    const stats = { ...res.stats, previousEvents: previous.length, appendedEvents: fresh.length, duplicatesSkipped: skipped };
    const written = await writeAll(merged, manifest.source, markets, all, stats, manifest.genericPrices === true);
    if (columns)
      writeColumns(
        merged,
        toColumns(
          readEvents(merged),
          markets.map((m) => m.id),
        ),
      );
    swapIn(merged, out);
    merged = undefined;
    return { ...written, mode, previousEvents: previous.length, duplicatesSkipped: skipped };
  } finally {
    rmSync(added, { recursive: true, force: true });
    if (merged) rmSync(merged, { recursive: true, force: true });
  }
}
