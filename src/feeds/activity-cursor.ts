/**
 * Where the activity poller stopped, kept across restarts. The venue's activity list is newest first
 * with no item ids, so the position is "the newest timestamp seen, and the keys of the items seen at
 * exactly that timestamp": everything newer, or at that timestamp and not yet seen, is new. Saved as a
 * small JSON file (written to a temporary name and renamed, so a crash never leaves half a file).
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';

export interface ActivityPosition {
  /** ms of the newest item seen (0 = nothing seen yet) */
  newestTs: number;
  /** keys of the items seen at exactly `newestTs` */
  keysAtNewest: string[];
}

export const START: ActivityPosition = { newestTs: 0, keysAtNewest: [] };

export interface PositionStore {
  load(): ActivityPosition | null;
  save(p: ActivityPosition): void;
}

export function memoryPositionStore(initial: ActivityPosition | null = null): PositionStore & { current: ActivityPosition | null } {
  const s = {
    current: initial,
    load: () => s.current,
    save: (p: ActivityPosition) => {
      s.current = { newestTs: p.newestTs, keysAtNewest: [...p.keysAtNewest] };
    },
  };
  return s;
}

export function filePositionStore(path: string): PositionStore {
  return {
    load() {
      try {
        const v = JSON.parse(readFileSync(path, 'utf8')) as Partial<ActivityPosition>;
        if (typeof v.newestTs === 'number' && Array.isArray(v.keysAtNewest) && v.keysAtNewest.every((k) => typeof k === 'string'))
          return { newestTs: v.newestTs, keysAtNewest: v.keysAtNewest };
      } catch {
        /* missing or unreadable: start fresh */
      }
      return null;
    },
    save(p) {
      const tmp = `${path}.tmp`;
      writeFileSync(tmp, JSON.stringify(p));
      renameSync(tmp, path);
    },
  };
}
