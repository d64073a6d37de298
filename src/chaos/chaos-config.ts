/**
 * The bot config a chaos run quotes with: every market of the local exchange, the bands strategy,
 * limits tight enough that fills push against them, and staleness limits short enough that a silent
 * stall must pull quotes well before the stream's idle timeout reconnects it (so the check sees it).
 */

export interface ChaosTiming {
  maxSilenceSeconds: number;
  streamIdleSeconds: number;
  reconcileSeconds: number;
}

export const CHAOS_LIMITS = {
  /** shares, worst case per market */
  maxPosition: 60,
  /** USDC at risk per market */
  maxNotional: 40,
  /** band levels per side: more open orders than this on one side is a slot quoted twice */
  slotsPerSide: 2,
};

export function chaosConfigYaml(t: ChaosTiming, ledgerPath?: string): string {
  return `# written by the chaos orchestrator (src/chaos/chaos-config.ts)
venue:
  chain: testnet         # the orchestrator's exchange verifies testnet signatures
  local: { seed: 1 }
markets:
  refreshSeconds: 2      # rotation: markets created during the run are picked up, ended ones retired
  select:
    - all: true
defaults:
  strategy:
    name: bands
    params:
      fair: microprice
      bands:
        - { minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: 10 }
        - { minMargin: 0.04, targetMargin: 0.05, maxMargin: 0.07, size: 15 }
  risk:
    maxPosition: ${CHAOS_LIMITS.maxPosition}
    maxNotional: ${CHAOS_LIMITS.maxNotional}
    maxOrderSize: 20
    maxBookAgeSeconds: ${t.maxSilenceSeconds}
    maxStreamSilenceSeconds: ${t.maxSilenceSeconds}
    pauseBeforeDeadlineSeconds: 5
account:
  maxDrawdown: 5000
orders:
  priceTolerance: 0
  sizeTolerance: 0.1
  batchLimit: 50
  requoteIntervalSeconds: 0.25
  inFlightTimeoutSeconds: 5
  reconcileIntervalSeconds: ${t.reconcileSeconds}
feeds:
  bookDepth: 10
  streamIdleTimeoutSeconds: ${t.streamIdleSeconds}
  activityPollSeconds: 1
  balancePollSeconds: 2
metrics:
  port: 0
${ledgerPath ? `ledger:\n  path: ${JSON.stringify(ledgerPath)}   # the referee reads the books (books-equal-venue)\n  markSeconds: 1\n` : ''}logging:
  level: info
`;
}
