/**
 * The venue phase of the live start-up (src/runtime/bot.ts): which venue the bot talks to and with which
 * keys. `--base-url` wins over the config; a `local` venue without one starts the embedded local
 * exchange in-process (with counterparties) and uses a throwaway key and a demo API key; otherwise the
 * private key comes from --key-file / wallet.keyFile / BOOKMAKER_PRIVATE_KEY and the API key from
 * --api-key / BOOKMAKER_API_KEY / wallet.apiKeyFile (paper mode needs neither).
 */
import { randomBytes } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { registerSecret } from '../core/logger.ts';
import { loadApiKey, loadPrivateKey, readApiKeyFile } from '../config/secrets.ts';
import type { BotConfig, LocalVenueSettings } from '../config/types.ts';
import { chainByName, type ChainConfig } from '../exchange/chains.ts';
import { createSigner } from '../exchange/signing/signer.ts';
import { ConfigError } from '../model/errors.ts';
import type { Counterparties } from '../sim/counterparties.ts';
import type { LocalExchange } from '../sim/local-exchange.ts';

/** What the venue phase reads of the bot's options. */
export interface VenueOptions {
  readonly config: BotConfig;
  readonly env?: NodeJS.ProcessEnv;
  readonly baseUrl?: string;
  readonly apiKey?: string;
  readonly keyFile?: string;
  readonly paper?: boolean;
}

export interface VenueSetup {
  baseUrl: string;
  chain: ChainConfig;
  apiKey: string | undefined;
  privateKey: string | undefined;
  local: LocalExchange | null;
  agents: Counterparties | null;
}

/** The embedded local exchange with a throwaway wallet and a demo API key (no keys, no network). */
async function startEmbedded(s: LocalVenueSettings, chain: ChainConfig): Promise<VenueSetup> {
  // loaded only when used: the exchange and its agents are ~60 MB of resident code a live bot never needs
  const { createLocalExchange } = await import('../sim/local-exchange.ts');
  const { startCounterparties, counterpartyAgents } = await import('../sim/counterparties.ts');
  const { startMarketChurn, churnOptions } = await import('../sim/market-churn.ts');
  const { startAutoClaim, autoClaimAfterMs } = await import('../sim/auto-claim.ts');
  const { faultSettingsOf } = await import('../sim/faults.ts');
  const privateKey = `0x${randomBytes(32).toString('hex')}`;
  registerSecret(privateKey);
  const signer = createSigner({ privateKey, chain });
  const apiKey = `demo-${randomBytes(12).toString('hex')}`;
  const local = createLocalExchange({
    seed: s.seed,
    markets: s.markets,
    apiKeys: [{ key: apiKey, wallet: signer.address }],
    initialCollateral: s.startingCollateral,
    chain, // venue.chain: the EIP-712 domains it verifies and the chainId its markets report
    faults: faultSettingsOf(s.faults.profile, s.faults.overrides),
  });
  // markets created and resolved over time (venue.local.newMarketEverySeconds …); deadlines kept either way
  const churn = startMarketChurn(local, churnOptions(s.seed, s));
  // venue.local.autoClaimAfterSeconds: the venue's auto-claim of resolved positions (off unless set)
  const autoClaimMs = autoClaimAfterMs(s.autoClaimAfterSeconds);
  if (autoClaimMs !== null) startAutoClaim(local, { afterMs: autoClaimMs });
  // venue.local.agents: other makers, and the noise and informed takers sharing takerRatePerSecond
  const agents = startCounterparties(local, { seed: s.seed, ...counterpartyAgents(s.agents), flow: s.flow, churn });
  const baseUrl = await local.start(s.port);
  return { baseUrl, chain, apiKey, privateKey, local, agents };
}

export async function setupVenue(o: VenueOptions): Promise<VenueSetup> {
  const cfg = o.config;
  const env = o.env ?? process.env;
  if (cfg.venue.kind === 'local' && !o.baseUrl) return startEmbedded(cfg.venue.local, chainByName(cfg.venue.chain));
  // a `local` config pointed at a base URL talks to a `bookmaker sim`, which verifies the chain of
  // `sim --chain` (mainnet by default, as here and as `bookmaker sign`); `venue.chain` says otherwise
  const chain = chainByName(cfg.venue.chain);
  const baseUrl = o.baseUrl ?? (cfg.venue.kind === 'url' ? cfg.venue.baseUrl : chain.apiBase);
  const apiKey = loadApiKey({ ...(o.apiKey !== undefined ? { apiKey: o.apiKey } : {}), env }) ?? readApiKeyFile(cfg.wallet.apiKeyFile, cfg.file);
  let privateKey: string | undefined;
  if (!o.paper) {
    const keyFile = o.keyFile ?? (cfg.wallet.keyFile ? resolve(cfg.file ? dirname(cfg.file) : process.cwd(), cfg.wallet.keyFile) : undefined);
    privateKey = loadPrivateKey({ ...(keyFile ? { keyFile } : {}), env });
    if (!apiKey) throw new ConfigError('no API key: pass --api-key or set BOOKMAKER_API_KEY (trading needs one)');
  }
  return { baseUrl, chain, apiKey, privateKey, local: null, agents: null };
}

/** Stop the embedded exchange and its agents, when they were started. */
export async function closeVenueSetup(v: VenueSetup): Promise<void> {
  v.agents?.stop();
  await v.local?.close();
}
