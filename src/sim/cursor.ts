/**
 * Opaque pagination cursors: base64url of a small JSON object `{k: number}` where `k` is the
 * position to continue after (a sequence number or an index, depending on the list). Clients treat
 * them as opaque; a cursor we cannot read is a 400 naming the `cursor` field.
 */
import { badRequest } from './http-errors.ts';

export function encodeCursor(k: number): string {
  return Buffer.from(JSON.stringify({ k }), 'utf8').toString('base64url');
}

/** Decode a cursor query value; undefined when absent. */
export function decodeCursor(raw: string | null | undefined, field = 'cursor'): number | undefined {
  if (raw === null || raw === undefined || raw === '') return undefined;
  if (raw.length > 200) throw badRequest(field, 'not a cursor returned by this server');
  try {
    const v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as { k?: unknown };
    if (typeof v.k === 'number' && Number.isSafeInteger(v.k) && v.k >= 0) return v.k;
  } catch {
    /* fall through */
  }
  throw badRequest(field, 'not a cursor returned by this server');
}
