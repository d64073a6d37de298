/**
 * All simulated counterparties of one market, stepped together: the hidden fair value, a background
 * maker, optional other makers, noise and informed takers, oracle updates and the resolution at the
 * deadline. Each agent draws from its own rng derived from (seed, market, name), so the same seed and
 * the same sequence of (nowMs, view) calls give the same commands — whatever other markets do.
 *
 * The server wires `stepMarketAgents` into a timer: read the view from the engine, apply the returned
 * commands in order, publish the oracle update, and stop stepping once `resolved` is set.
 */
import type { EngineCommand } from '../../engine/types.ts';
import { createRng, type Rng } from '../rng.ts';
import type { AgentView } from './agent-types.ts';
import { DEFAULT_MAKER, initMaker, stepMaker, type MakerConfig, type MakerOrders, type MakerState, type SubmitNote } from './background-maker.ts';
import { DEFAULT_FAIR_VALUE, fairProbability, initFairValue, stepFairValue, type FairValueConfig, type FairValueState } from './fair-value.ts';
import { DEFAULT_INFORMED_TAKER, newsOrders, stepInformedTaker, type InformedTakerConfig } from './informed-taker.ts';
import { DEFAULT_NOISE_TAKER, initArrivals, stepNoiseTaker, type ArrivalState, type NoiseTakerConfig } from './noise-taker.ts';
import { DEFAULT_ORACLE, initOracle, stepOracle, type OracleConfig, type OracleState, type OracleUpdate } from './oracle-updates.ts';
import { deriveSeed } from './random-draws.ts';
import { resolutionCommand } from './resolution.ts';

export interface MarketAgentsConfig {
  seed: number;
  market: number;
  /** engine trader indexes of the agents (the server creates and funds them) */
  traders: { maker: number; noise: number; informed: number; otherMakers?: number[] };
  initialProbability: number;
  /** resolve at this time (absent = never) */
  endTimeMs?: number;
  fair?: Partial<FairValueConfig>;
  maker?: Partial<Omit<MakerConfig, 'trader'>>;
  /** other makers: wider and noisier by default */
  otherMaker?: Partial<Omit<MakerConfig, 'trader'>>;
  noise?: Partial<Omit<NoiseTakerConfig, 'trader'>>;
  informed?: Partial<Omit<InformedTakerConfig, 'trader'>>;
  oracle?: Partial<OracleConfig>;
}

interface Agent<C, S> {
  cfg: C;
  state: S;
  rng: Rng;
}

export interface MarketAgents {
  readonly market: number;
  fair: Agent<FairValueConfig, FairValueState>;
  makers: Agent<MakerConfig, MakerState>[];
  noise: Agent<NoiseTakerConfig, ArrivalState>;
  informed: Agent<InformedTakerConfig, ArrivalState>;
  oracle: Agent<OracleConfig, OracleState>;
  resolution: { endTimeMs: number | undefined; rng: Rng };
  resolved: boolean;
}

export interface MarketAgentsStep {
  commands: EngineCommand[];
  oracle: OracleUpdate | null;
  /** the hidden fair YES probability after this step (for tests and diagnostics, never published) */
  fairProbability: number;
  resolved: boolean;
  /** a maker keeping its queue place learns its orders' ids: report each of these submits' result (absent: none) */
  notes?: Map<EngineCommand, SubmitNote>;
}

const OTHER_MAKER_DEFAULTS: Partial<Omit<MakerConfig, 'trader'>> = { halfSpreadTicks: 4, levels: 2, size: 20_000_000, refreshMs: 5000, fairNoise: 0.01 };

export function createMarketAgents(cfg: MarketAgentsConfig, nowMs: number): MarketAgents {
  const rng = (name: string) => createRng(deriveSeed(cfg.seed, cfg.market, name));
  const fairCfg = { ...DEFAULT_FAIR_VALUE, ...cfg.fair };
  const fairRng = rng('fair');
  const makers: Agent<MakerConfig, MakerState>[] = [
    { cfg: { ...DEFAULT_MAKER, ...cfg.maker, trader: cfg.traders.maker }, state: initMaker(nowMs), rng: rng('maker') },
  ];
  (cfg.traders.otherMakers ?? []).forEach((trader, i) => {
    makers.push({ cfg: { ...DEFAULT_MAKER, ...OTHER_MAKER_DEFAULTS, ...cfg.otherMaker, trader }, state: initMaker(nowMs), rng: rng(`maker-${i + 1}`) });
  });
  const noiseCfg = { ...DEFAULT_NOISE_TAKER, ...cfg.noise, trader: cfg.traders.noise };
  const noiseRng = rng('noise');
  const informedCfg = { ...DEFAULT_INFORMED_TAKER, ...cfg.informed, trader: cfg.traders.informed };
  const informedRng = rng('informed');
  const oracleCfg = { ...DEFAULT_ORACLE, ...cfg.oracle };
  const oracleRng = rng('oracle');
  return {
    market: cfg.market,
    fair: { cfg: fairCfg, state: initFairValue(cfg.initialProbability, fairCfg, fairRng, nowMs), rng: fairRng },
    makers,
    noise: { cfg: noiseCfg, state: initArrivals(noiseRng, noiseCfg.ratePerSec, nowMs), rng: noiseRng },
    informed: { cfg: informedCfg, state: initArrivals(informedRng, informedCfg.ratePerSec, nowMs), rng: informedRng },
    oracle: { cfg: oracleCfg, state: initOracle(oracleCfg, oracleRng, nowMs), rng: oracleRng },
    resolution: { endTimeMs: cfg.endTimeMs, rng: rng('resolution') },
    resolved: false,
  };
}

/**
 * Advance every agent of the market to `nowMs` against the current top of book. Order of the
 * commands: takers first (they react to the book as it is), then the makers' refreshed ladders,
 * then the resolution when due.
 */
export function stepMarketAgents(a: MarketAgents, nowMs: number, view: AgentView, orders?: MakerOrders): MarketAgentsStep {
  if (a.resolved) return { commands: [], oracle: null, fairProbability: fairProbability(a.fair.state), resolved: true };
  const jumpsBefore = a.fair.state.nextJumpMs;
  a.fair.state = stepFairValue(a.fair.state, a.fair.cfg, a.fair.rng, nowMs);
  const fair = fairProbability(a.fair.state);
  const commands: EngineCommand[] = [];
  // news: a jump in this step, acted on by the informed takers before the makers refresh
  if (a.fair.state.nextJumpMs !== jumpsBefore && a.informed.cfg.newsTrades > 0) commands.push(...newsOrders(a.informed.cfg, nowMs, view, fair));

  const informed = stepInformedTaker(a.informed.cfg, a.informed.state, a.informed.rng, nowMs, view, fair);
  a.informed.state = informed.state;
  commands.push(...informed.commands);
  const noise = stepNoiseTaker(a.noise.cfg, a.noise.state, a.noise.rng, nowMs, view);
  a.noise.state = noise.state;
  commands.push(...noise.commands);
  let notes: Map<EngineCommand, SubmitNote> | undefined;
  for (const m of a.makers) {
    const s = stepMaker(m.cfg, m.state, m.rng, nowMs, view, fair, orders);
    m.state = s.state;
    commands.push(...s.commands);
    if (s.notes) for (const [c, n] of s.notes) (notes ??= new Map()).set(c, n);
  }
  const o = stepOracle(a.oracle.cfg, a.oracle.state, a.oracle.rng, nowMs, fair);
  a.oracle.state = o.state;

  const end = a.resolution.endTimeMs;
  if (end !== undefined) {
    const r = resolutionCommand(a.market, end, a.resolution.rng, nowMs, fair);
    if (r) {
      // the makers' orders are voided by the resolution itself; nothing else trades after it
      commands.length = 0;
      commands.push(r);
      a.resolved = true;
      notes = undefined;
    }
  }
  return { commands, oracle: o.update, fairProbability: fair, resolved: a.resolved, ...(notes ? { notes } : {}) };
}
