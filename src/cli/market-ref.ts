/**
 * The market an operator names to `bookmaker ctl pause|resume`, as the logs and /metrics print it: the
 * full 0x id, the slug (`"market":"gas-below-3-00-this-quarter"` in the health lines, the `market`
 * label with slug labels), or the start of the id (`0x64ed…` in the hold texts). Resolved against the
 * markets the running bot answers with (GET /admin/status): exactly one match, or an error naming the
 * candidates.
 *
 *   resolveMarketRef('0x64ed…', marketsOfStatus(body))   // { id } | { error }
 */
import type { Bytes32 } from '../model/order.ts';
import { bytes32Of } from '../model/ids.ts';

export interface KnownMarket {
  readonly id: Bytes32;
  readonly slug?: string;
}

/** Shortest id prefix taken (0x and 4 hex digits): shorter ones match too many markets to be meant. */
const MIN_PREFIX_HEX = 4;
/** At most this many candidates are listed in an error. */
const LIST_MAX = 12;

/** The markets a status answer knows: quoted ones (with their slugs), paused ones, and those with books. */
export function marketsOfStatus(body: unknown): KnownMarket[] {
  const b = (body ?? {}) as {
    slugs?: Record<string, unknown>;
    paused?: unknown[];
    heldPauses?: { market?: unknown }[];
    books?: { markets?: { market?: unknown }[] };
  };
  const ids = new Set<string>();
  const add = (v: unknown): void => {
    const id = bytes32Of(v);
    if (id) ids.add(id);
  };
  for (const id of Object.keys(b.slugs ?? {})) add(id);
  for (const id of b.paused ?? []) add(id);
  for (const p of b.heldPauses ?? []) add(p?.market);
  for (const m of b.books?.markets ?? []) add(m?.market);
  return [...ids].sort().map((id) => {
    const slug = b.slugs?.[id];
    return typeof slug === 'string' && slug !== '' ? { id: id as Bytes32, slug } : { id: id as Bytes32 };
  });
}

function describe(ms: readonly KnownMarket[]): string {
  const shown = ms.slice(0, LIST_MAX).map((m) => (m.slug ? `${m.id} (${m.slug})` : m.id));
  return shown.join(', ') + (ms.length > LIST_MAX ? `, and ${ms.length - LIST_MAX} more` : '');
}

export function resolveMarketRef(raw: string, known: readonly KnownMarket[]): { id: Bytes32 } | { error: string } {
  const text = raw.trim();
  const full = bytes32Of(text);
  // a full id is taken as given: the bot answers for a market it does not quote (a pause held in the ledger)
  if (full) return { id: full };
  const bySlug = known.filter((m) => m.slug !== undefined && m.slug.toLowerCase() === text.toLowerCase());
  if (bySlug.length === 1) return { id: bySlug[0]!.id };
  // a shortened id as the logs print it: 0x64ed…, 0x64ed..., or 0x64ed
  const prefix = text.replace(/(…|\.\.\.)$/, '').toLowerCase();
  if (/^0x[0-9a-f]+$/.test(prefix)) {
    if (prefix.length - 2 < MIN_PREFIX_HEX)
      return { error: `market "${raw}": give at least ${MIN_PREFIX_HEX} hex digits after 0x (or the slug, or the full id)` };
    const byId = known.filter((m) => m.id.startsWith(prefix));
    if (byId.length === 1) return { id: byId[0]!.id };
    if (byId.length > 1)
      return { error: `market "${raw}" is ambiguous: ${byId.length} markets of this bot start with it: ${describe(byId)}; give more of the id` };
  }
  if (bySlug.length > 1) return { error: `market "${raw}" is ambiguous: ${describe(bySlug)}; give the id` };
  return {
    error:
      known.length === 0
        ? `market "${raw}": this bot quotes no market now`
        : `market "${raw}" is not a market of this bot (the full 0x id, its slug, or the start of its id); its markets: ${describe(known)}`,
  };
}
