/**
 * Generated market metadata for the local exchange, reproducible from the rng: a bytes32 id, a
 * question from templates, slug, category, deadline and the initial probability that seeds the
 * hidden fair value.
 */
import type { Bytes32 } from '../../model/order.ts';
import type { Rng } from '../rng.ts';

export interface GeneratedMarket {
  marketId: Bytes32;
  question: string;
  shortQuestion: string;
  slug: string;
  category: string;
  createdAtMs: number;
  /** trading deadline; resolution follows it */
  endTimeMs: number;
  /** initial YES probability in (0, 1) */
  initialProbability: number;
}

const SUBJECTS = [
  ['crypto', 'BTC close above $%N on %D', [80_000, 150_000]],
  ['crypto', 'ETH close above $%N on %D', [2_000, 8_000]],
  ['economics', 'US CPI year-on-year print above %N% for %D', [2, 5]],
  ['sports', 'The home side win by %N or more points on %D', [1, 15]],
  ['weather', 'More than %Nmm of rain in London on %D', [1, 30]],
  ['tech', 'A new frontier model release with over %N votes on the arena by %D', [1_000, 5_000]],
] as const;

/** 32 random bytes as lower-case hex (toString(16)): a Bytes32 in normal form. */
function hex64(rng: Rng): Bytes32 {
  let s = '';
  for (let i = 0; i < 8; i++) s += (Math.floor(rng.next() * 2 ** 32) >>> 0).toString(16).padStart(8, '0');
  return `0x${s}` as Bytes32;
}

function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * One market. `lifetimeMs` is how long it trades (default: 1–30 days, drawn); the id is drawn from
 * the rng, so two exchanges with the same seed list the same markets.
 */
export function generateMarket(rng: Rng, nowMs: number, lifetimeMs?: number): GeneratedMarket {
  const [category, template, [lo, hi]] = SUBJECTS[rng.int(0, SUBJECTS.length - 1)]!;
  const n = rng.int(lo, hi);
  const life = lifetimeMs ?? rng.int(1, 30) * 86_400_000;
  const endTimeMs = nowMs + life;
  const question = template.replace('%N', n.toLocaleString('en-US')).replace('%D', day(endTimeMs));
  const marketId = hex64(rng);
  const slug = `${question
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60)}-${marketId.slice(2, 8)}`;
  return {
    marketId,
    question: `Will ${question.charAt(0).toLowerCase()}${question.slice(1)}?`,
    shortQuestion: question.length > 60 ? `${question.slice(0, 57)}...` : question,
    slug,
    category,
    createdAtMs: nowMs,
    endTimeMs,
    initialProbability: 0.1 + 0.8 * rng.next(),
  };
}
