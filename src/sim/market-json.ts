/**
 * A stored market plus its book top → the spec's `Market` JSON. Prices in `outcomePrices` are in
 * 1e-6 USDC per share (the units of Order.price; 450000 = 45¢) — `chancePercentage` is 0–100.
 * Big numbers (volume) are decimal strings; addresses are checksummed here (kept lower-case inside).
 */
import { ONE } from '../model/units.ts';
import { checksumOf } from './checksum.ts';
import type { MarketRecord } from './records.ts';

export interface BookTop {
  /** best YES bid / ask in price units, null when that side is empty */
  bestBid: number | null;
  bestAsk: number | null;
}

export interface OutcomePriceJson {
  outcomeIndex: number;
  bestBid: number | null;
  bestAsk: number | null;
  spread: number | null;
  midPrice: number | null;
  lastPrice: number | null;
  sellPrice: number | null;
  buyPrice: number | null;
  chancePercentage: number | null;
}

function outcomePrice(outcomeIndex: number, bid: number | null, ask: number | null, last: number | null): OutcomePriceJson {
  const mid = bid !== null && ask !== null ? Math.round((bid + ask) / 2) : null;
  // chance: the mid when both sides exist, else the last trade, else the one side we have
  const chance = mid ?? last ?? bid ?? ask;
  return {
    outcomeIndex,
    bestBid: bid,
    bestAsk: ask,
    spread: bid !== null && ask !== null ? ask - bid : null,
    midPrice: mid,
    lastPrice: last,
    sellPrice: bid, // what a seller gets right now
    buyPrice: ask, // what a buyer pays right now
    chancePercentage: chance === null ? null : Math.round((chance / ONE) * 10_000) / 100,
  };
}

const flip = (p: number | null): number | null => (p === null ? null : ONE - p);

/** outcomePrices for [NO (0), YES (1)] from the YES-terms top of book. */
export function outcomePrices(top: BookTop, lastYes: number | null): OutcomePriceJson[] {
  return [outcomePrice(0, flip(top.bestAsk), flip(top.bestBid), flip(lastYes)), outcomePrice(1, top.bestBid, top.bestAsk, lastYes)];
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function marketJson(m: MarketRecord, top: BookTop, volume24h: bigint, chainId: number): Record<string, unknown> {
  return {
    id: m.id,
    oracle: checksumOf(m.oracle),
    question: m.question,
    questionSubmissionId: m.questionSubmissionId,
    shortQuestion: m.shortQuestion,
    outcomeTokens: [checksumOf(m.outcomeTokens[0]), checksumOf(m.outcomeTokens[1])],
    outcomePrices: outcomePrices(top, m.lastPrice),
    creator: checksumOf(m.creator),
    creatorProfile: null,
    blockTime: String(Math.floor(m.createdAt / 1000)),
    chainId: String(chainId),
    txHash: m.txHash,
    volume: m.volume.toString(),
    volume24h: volume24h.toString(),
    participantCount: m.participants.length,
    executableAt: null,
    proposedAt: m.resolutionStatus === 'none' ? null : iso(m.closedAt ?? m.resolvedAt),
    resolvedAt: iso(m.resolvedAt),
    payoutPcts: m.payoutPcts,
    resolutionStatus: m.resolutionStatus,
    metadata: {
      mediaHash: m.metadata.mediaHash ?? '0x' + '0'.repeat(64),
      startTime: Math.floor(m.createdAt / 1000),
      endTime: Math.floor(m.deadline / 1000),
      criteria: m.resolutionCriteria,
      slug: m.slug,
      sourceAccounts: [],
      shortSummary: (m.metadata.shortSummary as string | undefined) ?? null,
      categories: [m.category],
    },
    resolutionCriteria: m.resolutionCriteria,
    deadline: new Date(m.deadline).toISOString(),
    status: m.status,
    createdAt: new Date(m.createdAt).toISOString(),
    outcome: m.outcome,
    contractAddress: checksumOf(m.contractAddress),
    category: m.category,
    visibility: m.visibility,
    slug: m.slug,
  };
}

/** The data of a book stream's `event: status` (sent when the market resolves, just before the stream ends). */
export interface MarketStatusEvent {
  status: MarketRecord['status'];
  resolutionStatus: MarketRecord['resolutionStatus'];
  /** 1 = YES won, 0 = NO won, null for a split payout */
  outcome: number | null;
  /** [NO %, YES %] */
  payoutPcts: number[] | null;
  resolvedAt: string | null;
}

export function marketStatusEvent(m: MarketRecord): MarketStatusEvent {
  return { status: m.status, resolutionStatus: m.resolutionStatus, outcome: m.outcome, payoutPcts: m.payoutPcts, resolvedAt: iso(m.resolvedAt) };
}
