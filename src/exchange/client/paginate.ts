/**
 * Pagination as async iterators. Cursor pages stop on a null/absent cursor or an empty page (as the SDK's
 * `listAll` does — an empty page with a cursor would otherwise loop forever on a buggy venue); a repeated
 * cursor also stops, for the same reason. Offset pages (/markets/search) stop when `hasMore` is false or empty.
 */
export interface CursorPage<T> {
  items: T[];
  cursor: string | null;
}

export async function* paginateCursor<T>(
  fetchPage: (cursor: string | undefined) => Promise<CursorPage<T>>,
  maxPages = Infinity,
): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  const seen = new Set<string>();
  for (let page = 0; page < maxPages; page++) {
    const p = await fetchPage(cursor);
    for (const it of p.items) yield it;
    if (p.cursor === null || p.cursor === '' || p.items.length === 0 || seen.has(p.cursor)) return;
    seen.add(p.cursor);
    cursor = p.cursor;
  }
}

/**
 * Every item of a cursor-paged read: `read` gets the caller's params plus each page's cursor; a page's
 * items are its field `key`.
 */
export function iterateByCursor<P extends { cursor?: string }, K extends string, Page extends { cursor: string | null } & Record<K, unknown[]>>(
  read: (p: P) => Promise<Page>,
  params: Omit<P, 'cursor'>,
  key: K,
): AsyncGenerator<Page[K][number], void, undefined> {
  return paginateCursor(async (c) => {
    const page = await read((c === undefined ? params : withCursor(params, c)) as P);
    return { items: page[key], cursor: page.cursor };
  });
}

/**
 * `{ ...params, cursor }`, the same keys in the same order, built by adding to a fresh object: a spread
 * followed by a new key gave each page's params a V8 map of its own once the caller had its feedback
 * (docs/performance/map-churn.md); properties added one by one to `{}` follow V8's shared transitions.
 */
export function withCursor<T extends object>(params: T, cursor: string): T & { cursor: string } {
  const p = Object.assign({}, params) as T & { cursor: string };
  p.cursor = cursor;
  return p;
}

export interface OffsetPage<T> {
  items: T[];
  hasMore: boolean;
}

export async function* paginateOffset<T>(fetchPage: (offset: number) => Promise<OffsetPage<T>>, maxPages = Infinity): AsyncGenerator<T, void, undefined> {
  let offset = 0;
  for (let page = 0; page < maxPages; page++) {
    const p = await fetchPage(offset);
    for (const it of p.items) yield it;
    if (!p.hasMore || p.items.length === 0) return;
    offset += p.items.length;
  }
}

/** Drain an async iterator into an array (with an optional cap). */
export async function collect<T>(it: AsyncIterable<T>, max = Infinity): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) {
    out.push(x);
    if (out.length >= max) break;
  }
  return out;
}
