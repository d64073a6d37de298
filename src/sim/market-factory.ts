/**
 * New market records: ids, slugs and addresses derived deterministically from the exchange seed
 * and a counter (so a seed gives the same markets every run), and the demo market list.
 */
import { createHash } from 'node:crypto';
import type { Bytes32 } from '../model/order.ts';
import type { NewMarketInput } from './context.ts';
import type { MarketRecord } from './records.ts';
import { mustAddress, mustBytes32, type LowerAddress } from './wire-ids.ts';

function h(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function derivedBytes32(label: string): Bytes32 {
  return `0x${h(label)}` as Bytes32;
}

export function derivedAddress(label: string): LowerAddress {
  return `0x${h(label).slice(0, 40)}` as LowerAddress;
}

export function slugify(text: string): string {
  const s = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return s || 'market';
}

export function newMarketRecord(input: NewMarketInput, seed: number, counter: number, now: number, takenSlugs: (s: string) => boolean): MarketRecord {
  // a given id or creator enters here (tests, seed lists, replayed journal records): normalised once
  const id = input.id !== undefined ? mustBytes32(input.id, 'market id') : derivedBytes32(`bookmaker-sim:market:${seed}:${counter}`);
  const shortQuestion = input.shortQuestion ?? input.question.slice(0, 80);
  let slug = input.slug ?? slugify(shortQuestion);
  if (takenSlugs(slug)) slug = `${slug}-${id.slice(2, 8)}`;
  return {
    id,
    slug,
    question: input.question,
    shortQuestion,
    resolutionCriteria: input.resolutionCriteria ?? `Resolves YES if: ${input.question}`,
    category: input.category ?? 'general',
    visibility: input.visibility ?? 'public',
    creator: input.creator ? mustAddress(input.creator, 'market creator') : derivedAddress(`bookmaker-sim:creator:${seed}`),
    oracle: derivedAddress(`bookmaker-sim:oracle:${seed}`),
    outcomeTokens: [derivedAddress(`bookmaker-sim:token:${id}:0`), derivedAddress(`bookmaker-sim:token:${id}:1`)],
    contractAddress: derivedAddress(`bookmaker-sim:contract:${seed}`),
    txHash: derivedBytes32(`bookmaker-sim:tx:${id}`),
    questionSubmissionId: input.questionSubmissionId ?? null,
    createdAt: now,
    deadline: input.deadline ?? now + 30 * 86_400_000,
    status: 'active',
    resolutionStatus: 'none',
    resolvedAt: null,
    payoutPcts: null,
    outcome: null,
    tick: input.tick ?? 10_000,
    volume: 0n,
    lastPrice: null,
    participants: [],
    metadata: input.metadata ?? {},
  };
}

/** Demo markets for a fresh exchange (questions are fictional). */
export const DEMO_MARKETS: readonly NewMarketInput[] = [
  { question: 'Will the city council approve the new bike-lane budget by March?', shortQuestion: 'Bike-lane budget approved by March?', category: 'politics' },
  { question: 'Will average gas prices fall below $3.00 this quarter?', shortQuestion: 'Gas below $3.00 this quarter?', category: 'economics' },
  { question: 'Will the home team win the championship final?', shortQuestion: 'Home team wins the final?', category: 'sports' },
  { question: 'Will the next major open-source release ship before its announced date?', shortQuestion: 'Release ships on time?', category: 'technology' },
  { question: 'Will it snow in the capital on New Year’s Day?', shortQuestion: 'Snow on New Year’s Day?', category: 'weather' },
  { question: 'Will the film gross more than $500M worldwide in its opening month?', shortQuestion: 'Film grosses $500M in month one?', category: 'culture' },
  { question: 'Will the central bank cut rates at its next meeting?', shortQuestion: 'Rate cut at next meeting?', category: 'economics' },
  { question: 'Will the space agency launch its lunar lander this year?', shortQuestion: 'Lunar lander launches this year?', category: 'science' },
];

/** Generated market n (beyond the demo list) for counterparties that create markets over time. */
export function generatedMarketInput(n: number): NewMarketInput {
  const topics = ['turnout above 60%', 'a new record high', 'a merger announcement', 'an early release', 'a product recall', 'a tie vote'];
  const t = topics[n % topics.length]!;
  return { question: `Will there be ${t} (round ${n})?`, shortQuestion: `${t[0]!.toUpperCase()}${t.slice(1)} (#${n})?`, category: 'generated' };
}
