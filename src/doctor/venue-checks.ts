/**
 * The checks of `bookmaker doctor` that ask the venue, each without placing an order and without the
 * start-up migration's writes:
 *  - venue: GET /markets?limit=1 answers 200 with markets of the configured chain (its Date header
 *    feeds the clock check);
 *  - api-key and wallet: GET /account/migration without an address answers for the API key's wallet,
 *    which must be the private key's;
 *  - permissions: POST /orders/cancel of a fresh random nonce, signed by the wallet: a venue answers
 *    403 to a key without trade permission and 404 (no such order) otherwise; nothing is placed;
 *  - migration: the same status read through migrationPreview (what runStartupMigration would do);
 *  - markets: the selectors resolved as the bot resolves them, then each market's status and deadline;
 *  - collateral: GET /balance/:wallet read as the bot reads it (freeCollateral) against capitalNeeded.
 */
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'undici';
import { silentLogger } from '../core/logger.ts';
import type { BotConfig, MarketConfig } from '../config/types.ts';
import { chainAddresses, type ChainConfig } from '../exchange/chains.ts';
import type { MigrationStatus } from '../exchange/client/migration.ts';
import { NetworkError, TimeoutError, VenueError } from '../exchange/client/errors.ts';
import type { Signer } from '../exchange/signing/signer.ts';
import { eip55 } from '../exchange/signing/text-hash.ts';
import type { VenueClient } from '../exchange/venue-client.ts';
import { freeCollateral } from '../feeds/account-feed.ts';
import { venueMs } from '../feeds/feed-event.ts';
import { migrationPreview, tradingAllowed } from '../migration/startup-migration.ts';
import type { Address, Bytes32 } from '../model/order.ts';
import { insideDeadlineGuard } from '../risk/market-guard.ts';
import { selectMarkets } from '../selection/select-markets.ts';
import { fail, ok, usdcText, warn, type CheckResult } from './check.ts';
import { capitalNeeded } from './local-checks.ts';

/** The largest answer to the one-market list the venue check reads. */
const MAX_BODY_BYTES = 1 << 20;

export interface VenueFacts {
  /** the venue's clock minus ours at the answer (from its Date header), ms; null without a Date header */
  skewMs: number | null;
}

/** An error of a venue call in words (status and the venue's message; never a key). */
export function describeError(e: unknown): string {
  if (e instanceof VenueError) return e.message;
  if (e instanceof TimeoutError) return `no answer within ${e.timeoutMs} ms`;
  if (e instanceof NetworkError) return `cannot connect (${e.errno ?? 'network error'})`;
  return e instanceof Error ? e.message : String(e);
}

/** Reachability and chain: one public read, timed, with its Date header. */
export async function checkVenue(
  baseUrl: string,
  chain: ChainConfig,
  timeoutMs: number,
  now: () => number = Date.now,
): Promise<{ result: CheckResult; facts: VenueFacts | null }> {
  const name = 'venue';
  const url = `${baseUrl.replace(/\/+$/, '')}/markets?limit=1`;
  const sent = now();
  let status: number;
  let dateHeader: string | undefined;
  let text: string;
  // a connection of its own, destroyed after: no keep-alive socket holds the process after the report
  const dispatcher = new Agent({ connect: { timeout: timeoutMs } });
  try {
    // undici rather than fetch: fetch refuses some ports (e.g. 6000) that a venue base may use
    const res = await request(url, {
      dispatcher,
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(timeoutMs),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    status = res.statusCode;
    const d = res.headers.date;
    dateHeader = Array.isArray(d) ? d[0] : d;
    // a venue base answers this with a small page: a hostile or wrong host cannot make us read gigabytes
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of res.body as AsyncIterable<Buffer>) {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        res.body.destroy();
        return {
          result: fail(
            name,
            `${baseUrl}: GET /markets?limit=1 answered more than ${MAX_BODY_BYTES} bytes (not a venue API base?)`,
            'check the base URL: it must be the API base ending in /v2',
          ),
          facts: null,
        };
      }
      chunks.push(c);
    }
    text = Buffer.concat(chunks).toString('utf8');
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const timedOut = err.name === 'TimeoutError' || err.name === 'AbortError' || /timeout/i.test(err.code ?? '');
    const why = timedOut ? `no answer within ${timeoutMs} ms` : `cannot connect (${err.code ?? err.message})`;
    return {
      result: fail(
        name,
        `${baseUrl}: ${why}`,
        `check the base URL (--base-url, venue: in the config), DNS, firewall and proxy; the venue must answer GET ${baseUrl}/markets`,
      ),
      facts: null,
    };
  } finally {
    void dispatcher.destroy().catch(() => undefined);
  }
  const got = now();
  const rtt = got - sent;
  if (status !== 200)
    return { result: fail(name, `${baseUrl}: GET /markets answered HTTP ${status}`, 'check the base URL: it must end in the API version (…/v2)'), facts: null };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return {
      result: fail(name, `${baseUrl}: GET /markets did not answer JSON (not a venue API base?)`, 'check the base URL: it must be the API base ending in /v2'),
      facts: null,
    };
  }
  const markets = (body as { markets?: unknown }).markets;
  if (!Array.isArray(markets))
    return {
      result: fail(
        name,
        `${baseUrl}: GET /markets answered without a markets list (not a venue API base?)`,
        'check the base URL: it must be the API base ending in /v2',
      ),
      facts: null,
    };
  const date = Date.parse(dateHeader ?? '');
  // the Date header has whole seconds: compare it with our clock at the midpoint of the request
  const facts: VenueFacts = { skewMs: Number.isFinite(date) ? date - Math.round((sent + got) / 2) : null };
  const first = markets[0] as { chainId?: unknown } | undefined;
  const venueChain = first && (typeof first.chainId === 'string' || typeof first.chainId === 'number') ? Number(first.chainId) : null;
  if (venueChain !== null && Number.isFinite(venueChain) && venueChain !== chain.chainId) {
    return {
      result: fail(
        name,
        `${baseUrl} serves chain ${venueChain}, the config says ${chain.name} (${chain.chainId})`,
        `set venue.chain to the venue's chain, or point --base-url at the ${chain.name} venue`,
      ),
      facts,
    };
  }
  return {
    result: ok(
      name,
      `${baseUrl} answers in ${rtt} ms${venueChain !== null ? `, chain ${chain.name} (${venueChain})` : ` (no market listed to confirm the chain; the migration check compares Settlement V2)`}`,
    ),
    facts,
  };
}

/** The local clock against the venue's Date header (whole seconds, so ±1 s is noise). */
export function checkClock(facts: VenueFacts, cfg: BotConfig): CheckResult {
  const name = 'clock';
  if (facts.skewMs === null)
    return warn(name, 'the venue sent no Date header: the clock could not be compared', 'keep the host clock synchronised (chrony or systemd-timesyncd)');
  const skew = facts.skewMs;
  const abs = Math.abs(skew);
  const words = `local clock is ${(abs / 1000).toFixed(1)} s ${skew > 0 ? 'behind' : 'ahead of'} the venue (Date header, 1 s resolution)`;
  const fix = 'synchronise the host clock (timedatectl set-ntp true; chronyc tracking)';
  const deadMan = cfg.orders.deadManExpiryMs;
  if (abs > 30_000 || (deadMan > 0 && abs > deadMan / 2))
    return fail(name, `${words}: order expiries (dead-man ${deadMan / 1000} s), deadlines and signatures' deadlines would be off`, fix);
  if (abs > 2_000) return warn(name, words, fix);
  return ok(name, words);
}

/** The API key: accepted, and the wallet it trades for (GET /account/migration answers for the key's wallet). */
export async function readAccount(client: VenueClient): Promise<{ result: CheckResult; status: MigrationStatus | null }> {
  const name = 'api-key';
  try {
    const status = await client.migration.status();
    return { result: ok(name, `accepted; the key trades for wallet ${shown(status.walletAddress)}`), status };
  } catch (e) {
    if (e instanceof VenueError && e.status === 401)
      return {
        result: fail(
          name,
          `the venue refuses the API key (${describeError(e)})`,
          'pass the API key the venue issued for this wallet (--api-key, BOOKMAKER_API_KEY or wallet.apiKeyFile), for this venue (testnet and mainnet keys differ)',
        ),
        status: null,
      };
    if (e instanceof VenueError && e.status === 403)
      return {
        result: fail(name, `the API key may not read its account (${describeError(e)})`, 'use an API key with read and trade permissions'),
        status: null,
      };
    return { result: fail(name, `GET /account/migration failed: ${describeError(e)}`, 'rerun doctor; if it persists, the venue is degraded'), status: null };
  }
}

/** An address as an operator reads it: EIP-55 (the venue's answers enter in normal form, src/model/ids.ts). */
const shown = (a: Address): Address => eip55(a);

/** The private key's wallet against the key's wallet. */
export function checkWallet(status: MigrationStatus, signer: Signer): CheckResult {
  const name = 'wallet';
  if (status.walletAddress === signer.normalAddress) return ok(name, `the private key signs for ${signer.address}, the wallet the API key trades for`);
  return fail(
    name,
    `wrong key for the wallet: the private key signs for ${signer.address}, the API key trades for ${shown(status.walletAddress)}; every order would be refused`,
    `use the private key of ${shown(status.walletAddress)} (BOOKMAKER_PRIVATE_KEY or --key-file), or an API key issued for ${signer.address}`,
  );
}

/** Trade permission: a signed cancel of a nonce never used (no order exists, none is placed). */
export async function checkTradePermission(client: VenueClient, signer: Signer): Promise<CheckResult> {
  const name = 'permissions';
  const nonce = `0x${randomBytes(32).toString('hex')}` as Bytes32;
  const probe = 'a signed cancel of an unused nonce';
  try {
    const r = await client.orders.cancel(signer.signCancel(nonce));
    return ok(name, `trade permission: ${probe} was accepted (${r.alreadyCancelled ? 'already cancelled' : 'cancelled'}); no order placed`);
  } catch (e) {
    if (e instanceof VenueError && e.status === 404)
      return ok(name, `trade permission: ${probe} answered 404 (no such order), so the key may cancel and create; no order placed`);
    if (e instanceof VenueError && e.status === 403)
      return fail(
        name,
        `the API key lacks the trade permission: ${probe} answered ${describeError(e)}`,
        'issue an API key with the trade permission for this wallet and pass it (--api-key, BOOKMAKER_API_KEY or wallet.apiKeyFile)',
      );
    if (e instanceof VenueError && e.status === 400) {
      // a venue checks the signature before it looks the order up: a signature refusal means every order would be refused too
      if (/signature|signer/i.test(e.message))
        return fail(
          name,
          `the venue refused our signature (${describeError(e)}): the EIP-712 domain is not the venue's`,
          "set venue.chain to the venue's chain (testnet vs mainnet)",
        );
      return warn(
        name,
        `${probe} answered ${describeError(e)}: the trade permission could not be confirmed`,
        "the key passed authentication and no 403 came back; check the key's permissions with the venue if the first orders are refused",
      );
    }
    if (e instanceof VenueError && e.status === 409) return warn(name, `${probe} answered ${describeError(e)}`, 'see the migration check');
    return fail(name, `${probe} failed: ${describeError(e)}`, 'rerun doctor; if it persists, the venue is degraded');
  }
}

/** Settlement V2 operator approval and what the start-up migration would do. */
export function checkMigration(status: MigrationStatus, chain: ChainConfig): CheckResult {
  const name = 'migration';
  if (status.settlementV2Address && status.settlementV2Address !== chainAddresses(chain).settlementV2) {
    return fail(
      name,
      `the venue's Settlement V2 is ${shown(status.settlementV2Address)}, ${chain.name}'s is ${chain.settlementV2}: orders would be signed for the wrong contract`,
      "set venue.chain to the venue's chain",
    );
  }
  const p = migrationPreview(status);
  if (p.blocker)
    return fail(
      name,
      `migration active for this wallet and the start-up migration cannot finish it: ${p.blocker}`,
      'complete the migration with the venue (Context app or SDK), then rerun doctor',
    );
  if (!tradingAllowed(status))
    return warn(
      name,
      `migration active for this wallet; the start-up migration will: ${p.steps.join('; ')}`,
      'nothing to do by hand: `bookmaker run` does these steps before quoting (expect the first start to take longer)',
    );
  if (!status.v2OperatorApproved) {
    return fail(
      name,
      'Settlement V2 is not approved as operator of this wallet: the venue would void every order (MISSING_OPERATOR_APPROVAL)',
      'approve Settlement V2 as operator (gasless POST /gasless/operator, or the Context app/CLI setup), then rerun doctor',
    );
  }
  return ok(
    name,
    `Settlement V2 approved as operator; ${status.migrationActive ? 'migration complete for this wallet' : 'no migration active'}: the start-up migration has nothing to do`,
  );
}

export interface SelectedMarkets {
  readonly result: CheckResult;
  /** the selected markets' configs (their risk limits), for the collateral check */
  readonly entries: readonly Pick<MarketConfig, 'risk'>[];
}

/** The selectors resolved as `bookmaker run` resolves them, and each market's status and deadline. */
export async function checkMarkets(client: VenueClient, cfg: BotConfig, now: () => number = Date.now): Promise<SelectedMarkets> {
  const name = 'markets';
  let chosen;
  try {
    chosen = await selectMarkets(client, cfg.markets, {
      maxMarkets: cfg.selection.maxMarkets,
      shard: cfg.selection.shard,
      log: silentLogger,
      allowEmpty: true,
      now,
    });
  } catch (e) {
    return {
      result: fail(
        name,
        `the selectors cannot be resolved: ${describeError(e)}`,
        'fix the markets: section (ids and slugs as `bookmaker markets list` prints them)',
      ),
      entries: [],
    };
  }
  if (chosen.length === 0)
    return {
      result: fail(name, 'no market at the venue matches the selectors', 'check the markets: section against `bookmaker markets list --base-url …`'),
      entries: [],
    };
  let inactive = 0;
  let guarded = 0;
  const queue = [...chosen];
  const worker = async (): Promise<void> => {
    for (let m = queue.shift(); m; m = queue.shift()) {
      const info = await client.markets.get(m.marketId);
      if (info.status !== 'active') inactive++;
      else if (insideDeadlineGuard(venueMs(info.deadline) || null, now(), m.risk.pauseBeforeDeadlineMs)) guarded++;
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(8, chosen.length) }, worker));
  } catch (e) {
    return {
      result: fail(
        name,
        `${chosen.length} selected, but a market could not be read: ${describeError(e)}`,
        'rerun doctor; if it persists, the venue is degraded',
      ),
      entries: chosen,
    };
  }
  const quotable = chosen.length - inactive - guarded;
  const detail = `${chosen.length} selected: ${quotable} active and quotable, ${guarded} inside the deadline guard (pauseBeforeDeadlineSeconds), ${inactive} not active`;
  if (quotable === 0)
    return {
      result: fail(name, `${detail}: nothing would be quoted`, 'select active markets with a deadline further away than pauseBeforeDeadlineSeconds'),
      entries: chosen,
    };
  if (inactive + guarded > 0)
    return { result: warn(name, detail, 'the bot pauses these markets by itself; select others to use the capital'), entries: chosen };
  return { result: ok(name, detail), entries: chosen };
}

/**
 * USDC still in legacy Holdings that the start-up migration will move to the new Holdings before the
 * bot quotes (0 when trading is already allowed), 1e-6 USDC.
 */
export function collateralToMigrate(status: MigrationStatus | null, chain: ChainConfig): bigint {
  if (!status || tradingAllowed(status)) return 0n;
  let sum = 0n;
  const usdc = chainAddresses(chain).usdc;
  for (const b of status.legacyBalances) if (b.token === usdc) sum += b.balance;
  return sum;
}

/** The wallet's collateral (as the bot reads it, plus what the migration moves first) against what the selected markets' limits can use. */
export async function checkCollateral(
  client: VenueClient,
  wallet: `0x${string}`,
  entries: readonly Pick<MarketConfig, 'risk'>[],
  migrating = 0n,
): Promise<CheckResult> {
  const name = 'collateral';
  const summary = await client.balance.summary(wallet);
  const free = freeCollateral(summary);
  const have = free + migrating;
  const need = capitalNeeded(entries);
  const held =
    migrating > 0n
      ? `${usdcText(free)} USDC free and ${usdcText(migrating)} USDC in legacy Holdings that the start-up migration moves first`
      : `${usdcText(free)} USDC free`;
  const detail = `${held}; the limits of the ${entries.length} selected market(s) can use ${usdcText(need)} USDC (Σ maxNotional, capped by maxTotalNotional)`;
  if (have === 0n)
    return fail(name, `${detail}: the wallet holds no collateral`, 'deposit USDC into the venue (testnet: POST /balance/mint-test-usdc), then rerun doctor');
  if (have < need)
    return fail(
      name,
      `limits larger than the collateral: ${detail}`,
      `deposit ${usdcText(need - have)} USDC more, or lower risk.maxNotional / risk.maxTotalNotional to at most ${usdcText(have)} USDC in all`,
    );
  return ok(name, detail);
}
