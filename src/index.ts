/**
 * The public API of the `bookmaker` package (`import { ... } from 'bookmaker'`), for strategy authors
 * and integrators. Everything else under src/ is internal and may change between versions; the names
 * below are kept stable (README "Using bookmaker as a package"). This is the one barrel file of the
 * project (docs/architecture.md#habits (habit 1): barrels only for public entry points).
 */

// ── The strategy contract: what a strategy reads, returns and exports ─────────────────────────────
export type {
  MarketView,
  MarketStatus,
  DesiredQuote,
  StrategyModule,
  ViewBook,
  ViewLevel,
  ViewTrade,
  MidSample,
  MidSeries,
  ViewPosition,
  WorkingQuote,
  ViewOracle,
  ViewPnl,
  ViewAccount,
  ViewVenueHealth,
  ViewFlags,
} from './strategy/types.ts';
export { loadStrategy, BUILTIN_STRATEGIES, type BuiltinStrategy } from './strategy/registry.ts';

// ── Helpers for strategies (pure: no clock, no I/O) ────────────────────────────────────────────────
export { ladder, type LadderSpec } from './strategy/ladder.ts';
export { fairPrice, microprice, type FairSource } from './strategy/fair-price.ts';
export { othersBook, bookExcluding, fairBook, FAIR_FROM, type FairFrom } from './strategy/others-book.ts';
export { ewmaSigma, type EwmaOptions } from './strategy/volatility.ts';
export { snapPrice, maxPrice, isOnGrid } from './strategy/snap-price.ts';
export { viewBook } from './strategy/view-book.ts';

// ── Units and errors ───────────────────────────────────────────────────────────────────────────────
export {
  PRICE_SCALE,
  SIZE_SCALE,
  CENT,
  ONE,
  centsToPrice,
  priceToCents,
  sharesToSize,
  isValidPrice,
  decimalToScaled,
  scaledToDecimal,
  notionalCeil,
  notionalFloor,
} from './model/units.ts';
export { BookmakerError, ConfigError, BadInputError, BadResponseError, InvariantError, SigningError, type ErrorCode } from './model/errors.ts';

// ── The venue client, the signer, chains ───────────────────────────────────────────────────────────
export { createVenueClient, type VenueClient, type VenueClientOptions } from './exchange/venue-client.ts';
export { createSigner, type Signer, type SignerOptions } from './exchange/signing/signer.ts';
export { parseOrderInput, type ParsedOrderInput } from './exchange/signing/orderInput.ts';
export { CHAINS, MAINNET, TESTNET, chainByName, type ChainConfig, type ChainName } from './exchange/chains.ts';

// ── Configuration and secrets ──────────────────────────────────────────────────────────────────────
export { loadConfig, parseConfigText, type LoadOptions } from './config/load-config.ts';
export type { BotConfig, MarketConfig, VenueConfig, StrategySettings } from './config/types.ts';
export { loadPrivateKey, loadApiKey } from './config/secrets.ts';
export { createLogger, silentLogger, type Logger } from './core/logger.ts';
export { systemClock, type Clock } from './core/clock.ts';

// ── Backtests ──────────────────────────────────────────────────────────────────────────────────────
export { runBacktest, type BacktestInput, type BacktestRun } from './backtest/run-backtest.ts';
export { loadBacktestConfig, type BacktestSettings, type LoadedBacktestConfig } from './backtest/backtest-config.ts';
export { loadReplaySource, type ReplaySource, type SourceOptions } from './backtest/replay-source.ts';
export { buildSummary, summaryJson, type BacktestSummary } from './backtest/report-summary.ts';
export { buildHtml } from './backtest/report-html.ts';
