/**
 * The checks of `bookmaker doctor` that need no venue: the ledger file, what holds the next start
 * (latch, halt, pauses), the admin endpoint, the metrics endpoint and the consistency of the configured limits. Each returns one CheckResult.
 *
 * Where the config's shape is read (so a change of the config moves only these lines):
 *  - admin token and port: checkAdmin (config `admin.port`, env BOOKMAKER_ADMIN_TOKEN);
 *  - account-wide limits: accountLimits; per-market limits: checkLimits (config `risk:` per entry).
 */
import { randomBytes } from 'node:crypto';
import { accessSync, constants, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AccountLimits } from '../account/account-risk.ts';
import type { BotConfig, MarketConfig } from '../config/types.ts';
import { ADMIN_TOKEN_ENV } from '../control/admin-server.ts';
import { registerSecret } from '../core/logger.ts';
import { hasHistory, readVenueHistory, type HistorySource } from '../ledger/baseline.ts';
import { shardOwns, shardText } from '../selection/shard.ts';
import { ledgerPath } from '../ledger/bot-ledger.ts';
import { heldLines, heldState, holdsAny } from '../ledger/held-state.ts';
import type { Address } from '../model/order.ts';
import { fail, ok, usdcText, warn, type CheckResult } from './check.ts';
import { portProblem, probePort } from './port-check.ts';

/** The shortest admin token the doctor accepts (a guessable token guards the kill-switch latch). */
export const ADMIN_TOKEN_MIN = 16;
/** The smallest order the venue takes, 1e-6 shares (0.01 shares). */
export const VENUE_MIN_ORDER_SIZE = 10_000;

const uid = (): number | null => (typeof process.getuid === 'function' ? process.getuid() : null);

/** The nearest folder of `p` that exists (the ledger creates the missing ones). */
function existingAncestor(p: string): string {
  let d = dirname(p);
  for (;;) {
    try {
      statSync(d);
      return d;
    } catch {
      const up = dirname(d);
      if (up === d) return d;
      d = up;
    }
  }
}

/** Create and remove a small file in `dir`: the one test of writability that also holds for root. */
function probeWrite(dir: string): string | null {
  const f = join(dir, `.bookmaker-doctor-${randomBytes(6).toString('hex')}`);
  try {
    writeFileSync(f, '', { flag: 'wx', mode: 0o600 });
    unlinkSync(f);
    return null;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code ?? 'error';
  }
}

/** The ledger file (src/ledger): where it goes, that this account owns it and can write it and its folder. */
export function checkLedger(cfg: BotConfig, embedded: boolean): CheckResult {
  const name = 'ledger';
  const p = ledgerPath(cfg, embedded);
  if (p === ':memory:') {
    if (embedded) return ok(name, 'in memory (the embedded demo keeps no books)');
    return warn(
      name,
      "ledger.path is ':memory:': fills, positions, PnL and the kill-switch latch are not kept across restarts",
      'remove ledger.path (default: .bookmaker/<config>.ledger.sqlite beside the config) or set it to a file',
    );
  }
  const me = uid();
  let st: ReturnType<typeof statSync> | null = null;
  try {
    st = statSync(p);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR')
      return fail(
        name,
        `${p}: cannot be read (${code ?? 'error'})`,
        `make ${dirname(p)} a folder this account (uid ${me ?? '?'}) can write, or set ledger.path elsewhere`,
      );
  }
  if (st) {
    if (!st.isFile()) return fail(name, `${p}: exists and is not a regular file`, 'set ledger.path to a file name');
    if (me !== null && st.uid !== me)
      return fail(
        name,
        `${p}: owned by uid ${st.uid}, this account is uid ${me}`,
        `run the bot as uid ${st.uid}, or chown ${me} ${p} (and its -wal and -shm files)`,
      );
    try {
      accessSync(p, constants.R_OK | constants.W_OK);
    } catch {
      return fail(name, `${p}: this account cannot write it`, `chmod 600 ${p}`);
    }
    // SQLite writes its -wal and -shm files beside the ledger
    const problem = probeWrite(dirname(p));
    if (problem)
      return fail(
        name,
        `${p}: its folder ${dirname(p)} is not writable (${problem}); SQLite needs it for the journal`,
        `make ${dirname(p)} writable by uid ${me ?? '?'}`,
      );
    return ok(name, `${p} (exists, owned by uid ${st.uid}, writable)`);
  }
  const dir = existingAncestor(p);
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    /* reported below */
  }
  if (!isDir)
    return fail(name, `${p}: cannot be created: ${dir} is not a folder`, `set ledger.path to a file in a folder this account (uid ${me ?? '?'}) can write`);
  const problem = probeWrite(dir);
  if (problem)
    return fail(
      name,
      `${p}: cannot be created: ${dir} is not writable by this account (${problem})`,
      `make ${dir} writable by uid ${me ?? '?'} or set ledger.path elsewhere`,
    );
  return ok(name, `${p} (will be created at the first start; ${dir} is writable)`);
}

/**
 * What holds the next start (src/ledger/held-state.ts): the kill-switch latch, an operator's (or the
 * bot's own) halt, paused markets, read from the ledger and the latch file as a start ORs them, and
 * which record holds each: a hold kept in the latch file only is lost with a backup of the ledger alone.
 * A hold warns (the start works, it does not quote); none is ok.
 */
export function checkHolds(cfg: BotConfig, embedded: boolean): CheckResult {
  const name = 'holds';
  const p = ledgerPath(cfg, embedded);
  if (p === ':memory:') return ok(name, 'in-memory ledger: nothing holds across starts');
  const h = heldState(p);
  const read = h.ledgerUnread === null ? 'the ledger and its latch file' : `the latch file only; the ledger: ${h.ledgerUnread}`;
  if (!holdsAny(h)) return ok(name, `none: the next start quotes (read ${read})`);
  const what = [h.latch ? 'the kill switch is latched' : null, h.halt ? 'halted' : null, h.pauses.size ? `${h.pauses.size} market(s) paused` : null]
    .filter(Boolean)
    .join(', ');
  return warn(
    name,
    `the next start does not quote${h.latch || h.halt ? '' : ' the paused markets'} (${what}; read ${read}): ${heldLines(h, p).join('; ')}`,
    'review each hold; with the bot running, bookmaker ctl clear-kill --reason TEXT lifts the latch (clear-kill --offline with it stopped) ' +
      'and bookmaker ctl resume the halt and pauses (docs/control.md)',
  );
}

/**
 * The ledger against the wallet's venue history (docs/books-and-pnl.md): a new or emptied ledger on a
 * wallet that holds tokens or has placed orders is refused by `run` (exit 2) unless `--new-ledger`
 * adopts the holdings as the baseline. null when the ledger already holds books (nothing to add).
 */
export async function checkInheritedHistory(
  cfg: BotConfig,
  embedded: boolean,
  client: HistorySource,
  wallet: Address,
  legacy = false,
): Promise<CheckResult | null> {
  const p = ledgerPath(cfg, embedded || cfg.venue.kind === 'local');
  if (p === ':memory:') return null;
  let size = -1;
  try {
    size = statSync(p).size;
  } catch {
    /* no file yet */
  }
  if (size > 0) return null;
  // a shard reads only its own markets' history, as `run` does: a sibling's trading is not this ledger's
  const shard = cfg.selection.shard;
  const h = await readVenueHistory(client, wallet, shard ? { owns: (id) => shardOwns(id, shard) } : {});
  if (!hasHistory(h) && !legacy)
    return ok('ledger', `${p} (${size === 0 ? 'empty' : 'will be created at the first start'}; the wallet has no venue history, so the books start at 0)`);
  const markets = new Set(h.holdings.map((x) => x.marketId)).size;
  const what = [
    h.holdings.length ? `${h.holdings.length} holding(s) in ${markets} market(s)` : null,
    h.hasOrders ? (shard ? `order history in shard ${shardText(shard)}'s markets` : 'order history') : null,
    legacy ? 'legacy orders or tokens that the start-up migration brings over' : null,
  ]
    .filter(Boolean)
    .join(' and ');
  return warn(
    'ledger',
    `${p} is ${size === 0 ? 'empty' : 'new'} but the wallet has ${what} at the venue: \`bookmaker run\` refuses to start (exit 2) rather than lose them`,
    'restore the ledger from its backup (docs/ledger-operations.md), or start with `bookmaker run --new-ledger` to adopt the holdings at the current marks as the baseline (PnL counts from then)',
  );
}

/** The admin endpoint (bookmaker ctl): off, or a long enough token and a port that can be bound. */
export async function checkAdmin(cfg: BotConfig, env: NodeJS.ProcessEnv, metricsPort: number): Promise<CheckResult> {
  const name = 'admin';
  const port = cfg.admin.port;
  const token = env[ADMIN_TOKEN_ENV];
  registerSecret(token);
  if (port === 0) return ok(name, 'admin endpoint off (admin.port 0): bookmaker ctl cannot reach the bot; SIGHUP still reloads');
  if (!token)
    return warn(
      name,
      `admin.port ${port} but ${ADMIN_TOKEN_ENV} is not set: the endpoint stays off and bookmaker ctl (clear-kill, pause, halt) cannot reach the bot`,
      `set ${ADMIN_TOKEN_ENV} to a random token of at least ${ADMIN_TOKEN_MIN} characters (e.g. openssl rand -hex 24)`,
    );
  if (token.trim().length < ADMIN_TOKEN_MIN)
    return fail(
      name,
      `${ADMIN_TOKEN_ENV} is ${token.trim().length} characters long (at least ${ADMIN_TOKEN_MIN})`,
      `set ${ADMIN_TOKEN_ENV} to a random token of at least ${ADMIN_TOKEN_MIN} characters (e.g. openssl rand -hex 24)`,
    );
  if (port === metricsPort)
    return fail(name, `admin.port ${port} is also the metrics port`, 'give the admin endpoint and the metrics endpoint different ports');
  const p = await probePort(port, '127.0.0.1');
  if (!p.free)
    return fail(
      name,
      `admin port 127.0.0.1:${port} ${portProblem(p.code)}`,
      `stop what holds port ${port} (ss -ltnp 'sport = :${port}') or set admin.port to a free port`,
    );
  return ok(name, `admin endpoint on 127.0.0.1:${port}, token set (${ADMIN_TOKEN_MIN}+ characters), port free`);
}

/** The metrics endpoint: off, or a port that can be bound (metrics.optional turns a busy port into a warning). */
export async function checkMetrics(cfg: BotConfig, port: number): Promise<CheckResult> {
  const name = 'metrics';
  if (port === 0)
    return warn(
      name,
      'metrics endpoint off (port 0): no /metrics, /healthz or /readyz, so no alert can fire',
      'set metrics.port (default 9464) and scrape it (docs/alerting.md)',
    );
  const p = await probePort(port, cfg.metrics.host);
  if (p.free) return ok(name, `/metrics, /healthz, /readyz on ${cfg.metrics.host}:${port} (port free)`);
  const detail = `metrics port ${cfg.metrics.host}:${port} ${portProblem(p.code)}`;
  const fix = `stop what holds port ${port} (ss -ltnp 'sport = :${port}') or pass --metrics-port / set metrics.port to a free port`;
  return cfg.metrics.optional
    ? warn(name, `${detail}; metrics.optional: the bot runs without metrics`, fix)
    : fail(name, `${detail}; the bot would exit 2 at start-up`, fix);
}

/**
 * The account-wide limits: the PnL limits of the `account:` section, and the total position and
 * notional of the entries' `risk:` (the smallest value set, non-zero, over the entries; 0 when none).
 */
export function accountLimits(
  markets: readonly Pick<MarketConfig, 'risk'>[],
  account?: Pick<AccountLimits, 'maxDrawdown' | 'maxDailyLoss' | 'maxLoss'>,
): { maxTotalNotional: number; maxTotalPosition: number; maxDrawdown: number; maxDailyLoss: number; maxLoss: number } {
  const least = (k: 'maxTotalNotional' | 'maxTotalPosition'): number => {
    const set = markets.map((m) => m.risk[k]).filter((v) => v > 0);
    return set.length ? Math.min(...set) : 0;
  };
  return {
    maxTotalNotional: least('maxTotalNotional'),
    maxTotalPosition: least('maxTotalPosition'),
    maxDrawdown: account?.maxDrawdown ?? 0,
    maxDailyLoss: account?.maxDailyLoss ?? 0,
    maxLoss: account?.maxLoss ?? 0,
  };
}

/**
 * The collateral the configured limits can put at risk at once, 1e-6 USDC: every selected market at
 * its notional limit, capped by the account-wide notional limit when one is set.
 */
export function capitalNeeded(markets: readonly Pick<MarketConfig, 'risk'>[]): bigint {
  let sum = 0n;
  for (const m of markets) sum += BigInt(m.risk.maxNotional);
  const cap = accountLimits(markets).maxTotalNotional;
  return cap > 0 && BigInt(cap) < sum ? BigInt(cap) : sum;
}

const shares = (u: number): string => String(u / 1e6);

/** The limits against each other: per market against account-wide, order size against position. */
export function checkLimits(cfg: BotConfig): CheckResult {
  const name = 'limits';
  const fails: string[] = [];
  const warns: string[] = [];
  const acct = accountLimits(cfg.markets, cfg.account);
  cfg.markets.forEach((m, i) => {
    const r = m.risk;
    const at = `markets[${i}].risk`;
    if (r.maxOrderSize < VENUE_MIN_ORDER_SIZE) fails.push(`${at}.maxOrderSize ${shares(r.maxOrderSize)} is below the venue's smallest order (0.01 shares)`);
    if (r.maxOrderSize > r.maxPosition)
      warns.push(`${at}.maxOrderSize ${shares(r.maxOrderSize)} exceeds maxPosition ${shares(r.maxPosition)} (orders are trimmed to the position limit)`);
    if (acct.maxTotalPosition > 0 && r.maxPosition > acct.maxTotalPosition)
      warns.push(`${at}.maxPosition ${shares(r.maxPosition)} exceeds the account-wide maxTotalPosition ${shares(acct.maxTotalPosition)}`);
    if (acct.maxTotalNotional > 0 && r.maxNotional > acct.maxTotalNotional)
      warns.push(`${at}.maxNotional ${usdcText(r.maxNotional)} exceeds the account-wide maxTotalNotional ${usdcText(acct.maxTotalNotional)}`);
    if (r.halted) warns.push(`${at}.halted is true: these markets never quote`);
  });
  for (const k of ['maxTotalNotional', 'maxTotalPosition'] as const) {
    const values = new Set(cfg.markets.map((m) => m.risk[k]));
    if (values.size > 1) warns.push(`the account-wide ${k} differs between entries (${[...values].join(', ')} in 1e-6 units): the smallest acts`);
  }
  if (acct.maxDailyLoss > 0 && acct.maxLoss > 0 && acct.maxDailyLoss > acct.maxLoss)
    warns.push(`maxDailyLoss ${usdcText(acct.maxDailyLoss)} exceeds maxLoss ${usdcText(acct.maxLoss)}: the daily limit never fires first`);
  if (acct.maxDrawdown === 0 && acct.maxDailyLoss === 0 && acct.maxLoss === 0)
    warns.push('no loss limit is set (maxDrawdown, maxDailyLoss, maxLoss all 0): nothing stops a losing bot');
  if (fails.length) return fail(name, [...fails, ...warns].join('; '), 'raise the limits named above to at least the venue minimum');
  if (warns.length) return warn(name, warns.join('; '), 'make each per-market limit at most its account-wide counterpart and maxOrderSize at most maxPosition');
  return ok(name, `${cfg.markets.length} entr${cfg.markets.length === 1 ? 'y' : 'ies'}: order sizes within positions, per-market within account-wide limits`);
}
