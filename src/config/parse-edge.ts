/**
 * The optional `edge:` section: markout horizons, toxicity and flow decay, regime thresholds
 * (src/state/edge-settings.ts). Human units: seconds, probabilities (0.03 = 3¢), shares.
 *
 *   edge:
 *     markoutHorizonsSeconds: [1, 5, 10, 30, 60, 300]
 *     toxicityHorizonSeconds: 10          # one of the horizons
 *     toxicityHalfLifeSeconds: 300
 *     poolHalfLifeSeconds: 1800           # the account's pooled toxicity (every market's markouts)
 *     printHalfLifeSeconds: 300           # the market's print markouts (the passive side of its trades)
 *     pickoffMarkout: 0.05                # a fill whose toxicity markout is below −5¢ was picked off (the guard's test)
 *     flowHalfLifeSeconds: 30
 *     regime:
 *       midJump: 0.03                     # within midJumpWindowSeconds: 5
 *       oracleJump: 0.05
 *       oracleJumpNoise: 3.5              # × the oracle's own mean |Δ| between readings; 0 = off
 *       burstFactor: 5                    # fast (5 s) volume rate vs slow (300 s)
 *       burstMinShares: 200
 *       eventHoldSeconds: 30
 *       trendMove: 0.03                   # over trendWindowSeconds: 60
 *       trendImbalance: 0.8               # |taker-flow imbalance|; 1 = off
 *       reduceOnlyMarkout: 0              # 0 = off; e.g. 0.03: own 10 s markout ≤ −3¢ → reduce-only
 *       minFills: 5
 *       reduceOnlyBeforeDeadlineSeconds: 0
 */
import { DEFAULT_EDGE, DEFAULT_REGIME, type EdgeSettings, type RegimeSettings } from '../state/edge-settings.ts';
import { ConfigFieldError, at, checkNumber, readNumber, readOptionalObject } from '../core/fields.ts';

const ms = (s: number): number => Math.round(s * 1000);

export function parseEdge(raw: unknown, path: string): EdgeSettings {
  if (raw === undefined || raw === null) return DEFAULT_EDGE;
  const o = readOptionalObject(raw, path, [
    'markoutHorizonsSeconds',
    'toxicityHorizonSeconds',
    'toxicityHalfLifeSeconds',
    'poolHalfLifeSeconds',
    'printHalfLifeSeconds',
    'pickoffMarkout',
    'flowHalfLifeSeconds',
    'regime',
  ]);
  let horizons = DEFAULT_EDGE.markoutHorizonsMs;
  if (o.markoutHorizonsSeconds !== undefined) {
    const list = o.markoutHorizonsSeconds;
    if (!Array.isArray(list) || list.length === 0 || list.length > 20)
      throw new ConfigFieldError(at(path, 'markoutHorizonsSeconds'), 'a list of 1 to 20 horizons in seconds', list);
    horizons = list.map((v, i) => ms(checkNumber(v, at(at(path, 'markoutHorizonsSeconds'), i), { min: 0, gt: true, max: 86_400 })));
    for (let i = 1; i < horizons.length; i++)
      if (!(horizons[i]! > horizons[i - 1]!)) throw new ConfigFieldError(at(at(path, 'markoutHorizonsSeconds'), i), 'horizons in increasing order', list[i]);
  }
  const defaultTox = horizons.includes(DEFAULT_EDGE.toxicityHorizonMs) ? DEFAULT_EDGE.toxicityHorizonMs / 1000 : horizons[0]! / 1000;
  const tox = ms(readNumber(o, 'toxicityHorizonSeconds', path, { min: 0, gt: true, max: 86_400 }, defaultTox));
  if (!horizons.includes(tox))
    throw new ConfigFieldError(at(path, 'toxicityHorizonSeconds'), `one of the markout horizons (${horizons.map((h) => h / 1000).join(', ')})`, tox / 1000);
  return {
    ...DEFAULT_EDGE,
    markoutHorizonsMs: horizons,
    toxicityHorizonMs: tox,
    toxicityHalfLifeMs: ms(readNumber(o, 'toxicityHalfLifeSeconds', path, { min: 0, gt: true, max: 31_536_000 }, DEFAULT_EDGE.toxicityHalfLifeMs / 1000)),
    poolHalfLifeMs: ms(readNumber(o, 'poolHalfLifeSeconds', path, { min: 0, gt: true, max: 31_536_000 }, DEFAULT_EDGE.poolHalfLifeMs / 1000)),
    printHalfLifeMs: ms(readNumber(o, 'printHalfLifeSeconds', path, { min: 0, gt: true, max: 31_536_000 }, DEFAULT_EDGE.printHalfLifeMs / 1000)),
    pickoffMarkout: Math.round(readNumber(o, 'pickoffMarkout', path, { min: 0, gt: true, max: 1 }, DEFAULT_EDGE.pickoffMarkout / 1e6) * 1e6),
    flowHalfLifeMs: ms(readNumber(o, 'flowHalfLifeSeconds', path, { min: 0, gt: true, max: 31_536_000 }, DEFAULT_EDGE.flowHalfLifeMs / 1000)),
    regime: parseRegime(o.regime, at(path, 'regime')),
  };
}

function parseRegime(raw: unknown, path: string): RegimeSettings {
  const o = readOptionalObject(raw, path, [
    'midJump',
    'midJumpWindowSeconds',
    'oracleJump',
    'oracleJumpNoise',
    'burstFactor',
    'burstMinShares',
    'eventHoldSeconds',
    'trendMove',
    'trendWindowSeconds',
    'trendImbalance',
    'reduceOnlyMarkout',
    'minFills',
    'reduceOnlyBeforeDeadlineSeconds',
  ]);
  const d = DEFAULT_REGIME;
  const price = (k: string, dflt: number) => Math.round(readNumber(o, k, path, { min: 0, max: 1 }, dflt / 1e6) * 1e6);
  const secs = (k: string, dflt: number, min = 0) => ms(readNumber(o, k, path, { min, max: 31_536_000 }, dflt / 1000));
  return {
    midJump: price('midJump', d.midJump),
    midJumpWindowMs: secs('midJumpWindowSeconds', d.midJumpWindowMs),
    oracleJump: readNumber(o, 'oracleJump', path, { min: 0, max: 1 }, d.oracleJump),
    oracleJumpNoise: readNumber(o, 'oracleJumpNoise', path, { min: 0, max: 100 }, d.oracleJumpNoise),
    burstFactor: readNumber(o, 'burstFactor', path, { min: 1, max: 1e6 }, d.burstFactor),
    burstMinSize: Math.round(readNumber(o, 'burstMinShares', path, { min: 0, max: 1e12 }, d.burstMinSize / 1e6) * 1e6),
    eventHoldMs: secs('eventHoldSeconds', d.eventHoldMs),
    trendMove: price('trendMove', d.trendMove),
    trendWindowMs: secs('trendWindowSeconds', d.trendWindowMs),
    trendImbalance: readNumber(o, 'trendImbalance', path, { min: 0, max: 1.01 }, d.trendImbalance),
    reduceOnlyMarkout: price('reduceOnlyMarkout', d.reduceOnlyMarkout),
    minFills: readNumber(o, 'minFills', path, { min: 0, max: 1e6 }, d.minFills),
    reduceOnlyBeforeDeadlineMs: secs('reduceOnlyBeforeDeadlineSeconds', d.reduceOnlyBeforeDeadlineMs),
  };
}
