/**
 * Pieces of bot configs (YAML text) that tests and benches write again and again: the local
 * exchange as the venue, and the `defaults:` of the bands strategy. A config is the pieces plus
 * what the test is about, e.g.
 *
 *   `${venueYaml(baseUrl)}${bandsDefaultsYaml([{ minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: 10 }], 'mid')}  risk:\n    maxPosition: 100\n`
 */

/** One band of the bands strategy (margins as fractions of 1 USDC, size in shares). */
export interface Band {
  readonly minMargin: number;
  readonly targetMargin: number;
  readonly maxMargin: number;
  readonly size: number;
}

/** `venue:` on a local exchange (testnet chain) at `baseUrl`. */
export function venueYaml(baseUrl: string): string {
  return `venue:\n  chain: testnet\n  baseUrl: ${baseUrl}\n`;
}

/**
 * `defaults:` with the bands strategy on these bands and fair price (`fair:` left out when
 * undefined); more keys of `defaults:` (`risk:`, …) may follow at two spaces.
 */
export function bandsDefaultsYaml(bands: readonly Band[], fair?: string): string {
  const lines = ['defaults:', '  strategy:', '    name: bands', '    params:'];
  if (fair !== undefined) lines.push(`      fair: ${fair}`);
  lines.push('      bands:');
  for (const b of bands) lines.push(`        - { minMargin: ${b.minMargin}, targetMargin: ${b.targetMargin}, maxMargin: ${b.maxMargin}, size: ${b.size} }`);
  return `${lines.join('\n')}\n`;
}

/**
 * A bot config on the embedded local exchange: `venue.local` is `o.local` (a YAML flow mapping: seed,
 * markets, agents…), every market quoted with `o.strategy` (the bands defaults unless given) under
 * `o.risk` (100 shares, 100 USDC unless given), metrics on a free port; `o.more` adds top-level keys.
 */
export function embeddedYaml(o: { local: string; chain?: string; strategy?: string; risk?: string; more?: string }): string {
  return `venue:
${o.chain ? `  chain: ${o.chain}\n` : ''}  local: ${o.local}
defaults:
  strategy: ${o.strategy ?? '{ name: bands }'}
  risk: ${o.risk ?? '{ maxPosition: 100, maxNotional: 100 }'}
markets: all
metrics: { port: 0 }
${o.more ?? ''}`;
}

/**
 * A quoting bot on the local exchange at `baseUrl` with a ledger file: bands at 1–3¢ around the mid,
 * 10 shares (`o.size`), requotes every 0.1 s, a reconcile every second (`o.reconcileSeconds`), metrics and the
 * admin endpoint on the ports given (admin port 0: off); `o.more` adds top-level keys. The bot of the e2e
 * tests that restart, halt or share a wallet.
 */
export function ledgerBotYaml(
  baseUrl: string,
  o: { metricsPort: number; adminPort: number; ledger: string; size?: number; reconcileSeconds?: number; more?: string },
): string {
  return `${venueYaml(baseUrl)}${bandsDefaultsYaml([{ minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: o.size ?? 10 }], 'mid')}  risk: { maxPosition: 100, maxNotional: 100, maxBookAgeSeconds: 60, maxStreamSilenceSeconds: 30 }
markets: all
orders:
  requoteIntervalSeconds: 0.1
  reconcileIntervalSeconds: ${o.reconcileSeconds ?? 1}
metrics:
  port: ${o.metricsPort}
ledger:
  path: ${o.ledger}
admin:
  port: ${o.adminPort}
${o.more ?? ''}`;
}
