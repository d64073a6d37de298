/**
 * The rank selector's settings as the config parser should give them for `rank: {}` (top 20, no floor,
 * margin 0.1, 600 s hold, default weights, 200 requests, 4 at once, no shortlist); `o` overrides any of
 * them. test/config/parse-rank.test.ts checks the parser's defaults against these.
 */
import { DEFAULT_WEIGHTS, type RankSettings } from '../../src/config/types.ts';

export function rankSettings(o: Partial<RankSettings> = {}): RankSettings {
  return {
    top: 20,
    minScore: null,
    perMarket: null,
    total: null,
    enterMargin: 0.1,
    minHoldMs: 600_000,
    weights: DEFAULT_WEIGHTS,
    minVolume: 0,
    feeBps: 0,
    maxRequests: 200,
    concurrency: 4,
    shortlist: 0,
    ...o,
  };
}
