/**
 * The configs of the parity runs (a bot on the local exchange, recorded, then the backtest of the
 * recording): shared by test/backtest/parity.test.ts and scripts/parity-eval.ts.
 */

/** The bot: bands on every market of a local exchange whose settings are `local` (YAML flow mapping body). */
export function parityBotYaml(local: string): string {
  return `
venue:
  local: { ${local} }
defaults:
  strategy: { name: bands, params: { fair: microprice, bands: [ { minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: 10 } ] } }
  risk: { maxPosition: 200, maxNotional: 150 }
markets: all
orders: { requoteIntervalSeconds: 0.25 }
metrics: { port: 0 }
logging: { level: warn }
`;
}

/**
 * The backtest section. The live bot learns its fills by polling every second (src/runtime/bot.ts
 * fillsPollMs): with `fillPollMs` > 0 the replayed one does too.
 */
export function parityBacktestYaml(fillPollMs: number): string {
  return `
backtest: { queueModel: level, latency: { feedMs: recorded, entryMs: 2, responseMs: 2${fillPollMs > 0 ? `, fillPollMs: ${fillPollMs}` : ''} }, fees: { makerBps: 0, takerBps: 50 } }
`;
}
