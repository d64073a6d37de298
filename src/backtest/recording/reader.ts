/**
 * Reads a recording directory: the manifest and every events file in order. Lines that fail to
 * parse or validate are dropped and counted (never thrown), and a truncated last gzip file (a
 * crashed recorder) yields the events that decode.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { constants, gunzipSync } from 'node:zlib';
import { BadInputError } from '../../model/errors.ts';
import { validateEvent, validateManifest, type RecordedEvent, type RecordingManifest } from './format.ts';

export interface ReadStats {
  files: number;
  lines: number;
  events: number;
  dropped: number;
  /** first few drop reasons, for the log */
  dropReasons: string[];
  truncatedFiles: number;
}

export function readManifest(dir: string): RecordingManifest {
  const path = join(dir, 'manifest.json');
  if (!existsSync(path)) throw new BadInputError('--data', `a recording directory with manifest.json (${dir})`, dir);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new BadInputError(path, 'valid JSON', (e as Error).message);
  }
  return validateManifest(json, path);
}

/** The events files present, in order (manifest order, plus any unlisted file found on disk). */
export function eventFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => /^events-\d{6}\.jsonl\.gz$/.test(f))
    .sort();
}

function gunzipTolerant(buf: Buffer): { text: string; truncated: boolean } {
  try {
    return { text: gunzipSync(buf).toString('utf8'), truncated: false };
  } catch {
    // Unterminated stream (crash mid-write): decode what is there.
    const text = gunzipSync(buf, { finishFlush: constants.Z_SYNC_FLUSH }).toString('utf8');
    return { text, truncated: true };
  }
}

/** Iterate every valid event of a recording in file order. */
export function* readEvents(dir: string, stats?: ReadStats): Generator<RecordedEvent> {
  const st = stats ?? { files: 0, lines: 0, events: 0, dropped: 0, dropReasons: [], truncatedFiles: 0 };
  for (const f of eventFiles(dir)) {
    st.files++;
    let text: string;
    let truncated = false;
    try {
      ({ text, truncated } = gunzipTolerant(readFileSync(join(dir, f))));
    } catch (e) {
      st.dropped++;
      if (st.dropReasons.length < 10) st.dropReasons.push(`${f}: unreadable (${(e as Error).message})`);
      continue;
    }
    if (truncated) st.truncatedFiles++;
    let start = 0;
    let lineNo = 0;
    while (start < text.length) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      const line = text.slice(start, end);
      start = end + 1;
      lineNo++;
      if (line.length === 0) continue;
      st.lines++;
      try {
        const ev = validateEvent(JSON.parse(line));
        st.events++;
        yield ev;
      } catch (e) {
        st.dropped++;
        if (st.dropReasons.length < 10) st.dropReasons.push(`${f}:${lineNo}: ${(e as Error).message}`);
      }
    }
  }
}
