/**
 * `venue:` — where the bot trades. Short forms: `mainnet` (default), `testnet`, `local` or a base
 * URL. Long form: `{ chain, baseUrl }` for any venue base with that chain's contracts, or
 * `{ local: {...} }` for the embedded local exchange with its own world (seed, markets, agents,
 * faults).
 */
import type { ChainName } from '../exchange/chains.ts';
import { ConfigFieldError, at, readEnum, readNumber, readObject, readOptionalNumber, readOptionalObject, readString } from '../core/fields.ts';
import type { LocalVenueSettings, VenueConfig } from './types.ts';
import { FLOW_PRESETS } from '../sim/flow-presets.ts';
import { DEFAULT_SETTLE_OUTSIDE } from '../sim/market-churn.ts';
import { FAULT_PROFILE_NAMES, FAULT_SETTING_KEYS, faultProfileProblem, isFaultProfileName, type FaultSettings } from '../sim/faults.ts';

const CHAINS: readonly ChainName[] = ['mainnet', 'testnet'];

export function parseVenue(raw: unknown, path: string): VenueConfig {
  if (raw === undefined || raw === null) return { kind: 'mainnet', chain: 'mainnet' };
  if (typeof raw === 'string') {
    if (raw === 'mainnet' || raw === 'testnet') return { kind: raw, chain: raw };
    if (raw === 'local') return { kind: 'local', chain: 'mainnet', local: parseLocal({}, at(path, 'local')) };
    return { kind: 'url', baseUrl: parseUrl(raw, path), chain: 'mainnet' };
  }
  const o = readObject(raw, path, ['chain', 'baseUrl', 'local']);
  const chain = readEnum<ChainName>(o, 'chain', path, CHAINS, 'mainnet');
  if (o.local !== undefined && o.baseUrl !== undefined) {
    throw new ConfigFieldError(at(path, 'baseUrl'), 'either baseUrl or local, not both', o.baseUrl);
  }
  if (o.local !== undefined) return { kind: 'local', chain, local: parseLocal(o.local === true ? {} : o.local, at(path, 'local')) };
  if (o.baseUrl !== undefined) return { kind: 'url', baseUrl: parseUrl(readString(o, 'baseUrl', path), at(path, 'baseUrl')), chain };
  return { kind: chain, chain };
}

export function parseUrl(s: string, path: string): string {
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    throw new ConfigFieldError(path, 'mainnet, testnet, local or an http(s) base URL', s);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConfigFieldError(path, 'an http(s) URL', s);
  if (u.username || u.password) throw new ConfigFieldError(path, 'a URL without credentials', '(a URL with user info)', 'a URL with user info');
  return s.replace(/\/+$/, '');
}

const LOCAL_KEYS = [
  'seed',
  'port',
  'markets',
  'tick',
  'startingCollateral',
  'agents',
  'flow',
  'faults',
  'newMarketEverySeconds',
  'marketLifetimeSeconds',
  'resolutionDelaySeconds',
  'maxLiveMarkets',
  'settleOutside',
  'autoClaimAfterSeconds',
];
/** a year: longer periods are surely a unit mistake (ms given for seconds) */
const MAX_CHURN_SECONDS = 365 * 86_400;
const AGENT_KEYS = ['noiseTakers', 'informedTakers', 'makers', 'takerRatePerSecond'];
const FAULT_KEYS = ['profile', ...FAULT_SETTING_KEYS];
/** keys of an earlier config format that were never applied; refused with the key that replaces them */
const OLD_FAULT_KEYS: Record<string, string> = {
  rateLimitBurstEverySeconds: 'burst429Rate (probability per request of a 429 burst)',
  streamDropEverySeconds: 'streamDropRate (probability per stream event)',
  stallEverySeconds: 'streamStallRate (probability per stream event)',
  duplicateRate: 'streamDuplicateRate',
};
/** bounds of each fault setting: rates are probabilities, times ms, lengths whole numbers */
const FAULT_BOUNDS: Record<keyof FaultSettings, { min: number; max: number; integer?: boolean }> = {
  latencyMs: { min: 0, max: 60_000 },
  latencyJitterMs: { min: 0, max: 60_000 },
  errorRate: { min: 0, max: 1 },
  burst429Rate: { min: 0, max: 1 },
  burst429Length: { min: 1, max: 1_000, integer: true },
  slowBodyRate: { min: 0, max: 1 },
  slowBodyChunkBytes: { min: 1, max: 1_048_576, integer: true },
  slowBodyPauseMs: { min: 0, max: 60_000 },
  streamDropRate: { min: 0, max: 1 },
  streamStallRate: { min: 0, max: 1 },
  streamDuplicateRate: { min: 0, max: 1 },
  streamReorderRate: { min: 0, max: 1 },
};

/** `faults: PROFILE` or `{ profile, ...overrides of single settings }`, in the vocabulary of src/sim/faults.ts. */
function parseFaults(raw: unknown, fp: string): LocalVenueSettings['faults'] {
  const obj = typeof raw === 'string' ? { profile: raw } : raw;
  if (obj && typeof obj === 'object' && !Array.isArray(obj)) {
    for (const k of Object.keys(obj)) {
      if (OLD_FAULT_KEYS[k]) throw new ConfigFieldError(at(fp, k), `no such setting: use ${OLD_FAULT_KEYS[k]}`, (obj as Record<string, unknown>)[k]);
    }
    const p = (obj as Record<string, unknown>).profile;
    if (typeof p === 'string' && !isFaultProfileName(p))
      throw new ConfigFieldError(at(fp, 'profile'), `one of ${FAULT_PROFILE_NAMES.join(', ')} (${faultProfileProblem(p)})`, p);
  }
  const f = readOptionalObject(obj, fp, FAULT_KEYS);
  const profile = readEnum(f, 'profile', fp, FAULT_PROFILE_NAMES, 'none');
  const overrides: Partial<FaultSettings> = {};
  for (const k of FAULT_SETTING_KEYS) if (f[k] !== undefined) overrides[k] = readNumber(f, k, fp, FAULT_BOUNDS[k]);
  return { profile, overrides };
}

export function parseLocal(raw: unknown, path: string): LocalVenueSettings {
  const o = readOptionalObject(raw, path, LOCAL_KEYS);
  const ap = at(path, 'agents');
  const a = readOptionalObject(o.agents, ap, AGENT_KEYS);
  const int = (obj: typeof o, k: string, p: string, min: number, max: number, d: number) => readNumber(obj, k, p, { min, max, integer: true }, d);
  // the defaults are the agents' own (noise 0.3 + informed 0.2 arrivals per second), as `bookmaker sim` runs them
  const noiseTakers = int(a, 'noiseTakers', ap, 0, 1000, 3);
  const informedTakers = int(a, 'informedTakers', ap, 0, 1000, 2);
  const takerRatePerSecond = readNumber(a, 'takerRatePerSecond', ap, { min: 0, max: 10_000 }, 0.5);
  if (a.takerRatePerSecond !== undefined && takerRatePerSecond > 0 && noiseTakers + informedTakers === 0) {
    throw new ConfigFieldError(
      at(ap, 'takerRatePerSecond'),
      '0 (or left out) when noiseTakers and informedTakers are both 0: the rate is shared by the takers',
      a.takerRatePerSecond,
    );
  }
  return {
    seed: int(o, 'seed', path, 0, 2 ** 32 - 1, 42),
    port: int(o, 'port', path, 0, 65535, 0),
    markets: int(o, 'markets', path, 1, 500, 4),
    tick: Math.round(readNumber(o, 'tick', path, { min: 0.000001, max: 0.1 }, 0.01) * 1e6),
    startingCollateral: BigInt(Math.round(readNumber(o, 'startingCollateral', path, { min: 0, max: 1e9 }, 10_000) * 1e6)),
    agents: {
      noiseTakers,
      informedTakers,
      makers: int(a, 'makers', ap, 0, 1000, 1),
      takerRatePerSecond,
    },
    flow: readEnum(o, 'flow', path, FLOW_PRESETS, 'benign'),
    faults: parseFaults(o.faults, at(path, 'faults')),
    // periods are kept to whole milliseconds when used; fractions of a second are allowed for tests
    newMarketEverySeconds: readNumber(o, 'newMarketEverySeconds', path, { min: 0, max: MAX_CHURN_SECONDS }, 0),
    marketLifetimeSeconds: readNumber(o, 'marketLifetimeSeconds', path, { min: 0, gt: true, max: MAX_CHURN_SECONDS }, 1800),
    resolutionDelaySeconds: readOptionalNumber(o, 'resolutionDelaySeconds', path, { min: 0, max: MAX_CHURN_SECONDS }) ?? null,
    maxLiveMarkets: int(o, 'maxLiveMarkets', path, 0, 100_000, 0),
    // as the synthetic backtest's markets (docs/edge.md, "Markets that resolve and are replaced")
    settleOutside: readNumber(o, 'settleOutside', path, { min: 0, max: 0.5, lt: true }, DEFAULT_SETTLE_OUTSIDE),
    // the venue's auto-claim, as `bookmaker sim --auto-claim-after` (off unless set: positions stay claimable)
    autoClaimAfterSeconds: readOptionalNumber(o, 'autoClaimAfterSeconds', path, { min: 0, max: MAX_CHURN_SECONDS }) ?? null,
  };
}
