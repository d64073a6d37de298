/**
 * `bookmaker ctl clear-kill|reload|pause|resume|halt|status [MARKET] -c FILE [--reason TEXT] [--json]`:
 * operator control of a running bot over its admin endpoint (127.0.0.1:admin.port, bearer token
 * from BOOKMAKER_ADMIN_TOKEN). See docs/control.md.
 *
 * ctl reads only the admin port and the ledger path from the config (ctl-target.ts), so an
 * error elsewhere in the file never blocks an emergency halt. Before it acts it asks the bot who it
 * is (`GET /admin/status`, `identity`) and refuses (exit 2, naming the bot that answered) when that
 * is not the bot of its config. `clear-kill --offline` clears the latch in the ledger file of a
 * stopped bot, refused while a process holds the ledger's write lock.
 * Exit codes: 0 done, 1 the bot answered with an error (or none answered), 2 bad flags, config,
 * wrong bot, or an offline clear refused.
 */
import { request } from 'undici';
import type { CommandSpec, ParsedArgs } from '../args.ts';
import { ADMIN_TOKEN_ENV, checkAdminToken } from '../../control/admin-server.ts';
import { readCtlTarget, type CtlTarget } from '../../control/ctl-target.ts';
import { readAdminState } from '../../control/admin-state.ts';
import { statusText } from '../../control/status-text.ts';
import { signRequest } from '../../control/admin-auth.ts';
import { describeIdentity, identityMismatch, parseIdentity } from '../../control/identity.ts';
import { describeHolder, LedgerLockedError } from '../../ledger/ledger-lock.ts';
import { openLedger } from '../../ledger/ledger.ts';
import { systemClock } from '../../core/clock.ts';
import { BadInputError, BookmakerError, ConfigError } from '../../model/errors.ts';
import type { Bytes32 } from '../../model/order.ts';
import { marketsOfStatus, resolveMarketRef } from '../market-ref.ts';
import { existsSync } from 'node:fs';

const ACTIONS = ['clear-kill', 'reload', 'pause', 'resume', 'halt', 'status'] as const;
type Action = (typeof ACTIONS)[number];

const command: CommandSpec = {
  name: 'ctl',
  summary: 'control a running bot: clear-kill, reload, pause, resume, halt, status',
  usage: 'bookmaker ctl clear-kill|reload|pause|resume|halt|status [MARKET] -c FILE [--reason TEXT] [--port P] [--json] [--offline [--ledger PATH]]',
  description:
    `Talks to the bot's admin endpoint on 127.0.0.1 (config admin.port, default 9465) with the token in ${ADMIN_TOKEN_ENV}. ` +
    'Only admin.port and ledger.path are read from the config, so an error elsewhere in it does not block a halt. ' +
    'Before acting, ctl checks that the bot answering is the bot of the config (same config file or same ledger file) and refuses (exit 2) otherwise, naming the bot that answered. ' +
    'clear-kill needs --reason (recorded in the ledger); with --offline it clears the latch in the ledger file of a stopped bot (refused while a bot holds the ledger). ' +
    'pause/resume take a market as the logs print it: the 0x id, the slug, or the start of the id (0x64ed…), ' +
    "resolved against the bot's markets (an ambiguous or unknown one is refused, exit 2, naming the candidates; " +
    'resume without one lifts the halt and every pause); halt pulls every quote until resume, also across restarts; ' +
    'reload re-reads the config file (same as SIGHUP): a bad file is refused and the running config stays. ' +
    "status shows the halt, pauses and kill switch, and the books' money figures (account and per market: position, realised and unrealised PnL, fills, volume, fees; " +
    "the kill switch's peak, drawdown and limits), the figures /metrics and `ledger pnl` show; --json prints the answer as JSON. " +
    'Exit codes: 0 done, 1 the bot refused or no bot answered, 2 bad flags or config, wrong bot, offline clear refused.',
  positionals: ['action', '[MARKET]'],
  options: {
    config: { type: 'string', short: 'c', description: 'the YAML config the bot runs with (only admin.port and ledger.path are read)', arg: 'FILE' },
    reason: { type: 'string', description: 'why (recorded with the action; required for clear-kill)', arg: 'TEXT' },
    port: { type: 'number', description: 'admin port (default: the config admin.port); without -c no identity check is possible', arg: 'P' },
    offline: {
      type: 'boolean',
      description: 'clear-kill only: clear the latch in the ledger file of a stopped bot, without the admin endpoint',
      default: false,
    },
    ledger: { type: 'string', description: 'the ledger file for clear-kill --offline (default from the config)', arg: 'PATH' },
    json: { type: 'boolean', description: "status: print the bot's answer as JSON (one line) instead of text", default: false },
  },
  run,
};
export default command;

interface Answer {
  status: number;
  body: unknown;
}

async function call(port: number, token: string, method: 'GET' | 'POST', action: string, body?: string): Promise<Answer> {
  try {
    const res = await request(`http://127.0.0.1:${port}/admin/${action}`, {
      method,
      // a one-time proof of the token bound to this request, never the token itself (admin-auth.ts)
      headers: { authorization: signRequest(token, method, `/admin/${action}`, body ?? ''), 'content-type': 'application/json' },
      ...(body !== undefined ? { body } : {}),
      headersTimeout: 60_000,
      bodyTimeout: 60_000,
    });
    return { status: res.statusCode, body: await res.body.json().catch(() => null) };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new BookmakerError('NETWORK', `no bot answers on 127.0.0.1:${port} (${code ?? (e as Error).message})`, { cause: e });
  }
}

async function run(args: ParsedArgs): Promise<number> {
  const o = args.options;
  const action = args.positionals[0] as Action | undefined;
  if (!action || !ACTIONS.includes(action)) throw new BadInputError('action', `one of ${ACTIONS.join(', ')}`, action ?? '');
  const raw = args.positionals[1];
  if (args.positionals.length > 2) throw new BadInputError('arguments', 'an action and at most one market', args.positionals.join(' '));
  if (raw !== undefined && !['pause', 'resume'].includes(action)) throw new BadInputError('MARKET', `no market for ${action}`, raw);
  if (raw !== undefined && raw.trim() === '') throw new BadInputError('MARKET', 'a market id, its slug or the start of its id', raw);
  if (action === 'pause' && raw === undefined) throw new BadInputError('MARKET', 'a market to pause (halt pauses every market)', '');
  const reason = o.reason as string | undefined;
  if (action === 'clear-kill' && (!reason || reason.trim() === ''))
    throw new BadInputError('--reason', 'why the kill switch may be cleared (it is recorded)', reason ?? '');
  const offline = o.offline === true;
  if (offline && action !== 'clear-kill') throw new BadInputError('--offline', 'only with clear-kill (every other action needs the running bot)', action);
  const file = o.config as string | undefined;
  const target = file ? await readCtlTarget(file, process.env) : null;
  if (offline) return offlineClear(reason!, (o.ledger as string | undefined) ?? target?.ledger);

  // the port the bot of this config is bound to, when it noted one (a reload never moves it; admin-state.ts)
  const bound = target && o.port === undefined ? readAdminState(target.file) : null;
  if (bound && target && bound.port !== target.adminPort) {
    process.stderr.write(
      `bookmaker ctl: the bot of ${target.file} (pid ${bound.pid}) is bound to admin port ${bound.port}; admin.port ${target.adminPort} in the file applies at its next restart\n`,
    );
  }
  const port = (o.port as number | undefined) ?? bound?.port ?? target?.adminPort;
  if (port === undefined) throw new BadInputError('--config', 'a config file (-c FILE) or --port', file);
  if (port === 0 && o.port === undefined)
    throw new ConfigError(`${file}: admin.port is 0: the bot of this config runs no admin endpoint (only SIGHUP reloads it)`);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new BadInputError('--port', 'an integer from 1 to 65535', port);
  const token = process.env[ADMIN_TOKEN_ENV];
  if (!token) {
    throw new BadInputError(
      ADMIN_TOKEN_ENV,
      `the admin token the bot was started with (environment)${action === 'clear-kill' ? '; for a stopped bot, clear-kill --offline' : ''}`,
      '(unset)',
    );
  }
  checkAdminToken(token);

  // who answers: the bot of this config, or nothing is sent
  let who: Answer;
  try {
    who = await call(port, token, 'GET', 'status');
  } catch (e) {
    if (action === 'clear-kill')
      throw new BookmakerError('NETWORK', `${(e as Error).message}; if the bot is stopped, clear its ledger with clear-kill --offline`, { cause: e });
    throw e;
  }
  if (who.status === 401) {
    process.stderr.write(
      `bookmaker ctl: the process on 127.0.0.1:${port} refused the token (401): not the token this bot was started with, or not the bot of this config; nothing was done\n`,
    );
    return 1;
  }
  if (who.status === 503) {
    process.stderr.write(
      `bookmaker ctl: the bot on 127.0.0.1:${port} is still starting (${String((who.body as { error?: unknown } | null)?.error ?? 'HTTP 503')}); nothing was done\n`,
    );
    return 1;
  }
  const id = parseIdentity((who.body as Record<string, unknown> | null)?.identity);
  if (who.status !== 200 || !id) {
    process.stderr.write(`bookmaker ctl: the process on 127.0.0.1:${port} does not say which bot it is (HTTP ${who.status}); nothing was sent to it\n`);
    return 2;
  }
  if (target) {
    const wrong = identityMismatch(id, { configFile: target.file, ledger: target.ledger });
    if (wrong) {
      process.stderr.write(`bookmaker ctl: refused: ${wrong} (127.0.0.1:${port}); nothing was sent to it. Give each bot its own admin.port.\n`);
      return 2;
    }
  } else process.stderr.write(`bookmaker ctl: no config given: acting on the bot answering on 127.0.0.1:${port}: ${describeIdentity(id)}\n`);

  // the market as the logs print it (id, slug, start of the id), resolved against the bot's markets
  let market: Bytes32 | undefined;
  if (raw !== undefined) {
    const r = resolveMarketRef(raw, marketsOfStatus(who.body));
    if ('error' in r) {
      process.stderr.write(`bookmaker ctl: ${r.error}; nothing was sent\n`);
      return 2;
    }
    market = r.id;
    if (market !== raw.trim().toLowerCase()) process.stderr.write(`bookmaker ctl: market ${raw} is ${market}\n`);
  }
  const answer =
    action === 'status' ? who : await call(port, token, 'POST', action, JSON.stringify({ ...(reason ? { reason } : {}), ...(market ? { market } : {}) }));
  // status for a person by default (status-text.ts); every other answer, and status with --json, as JSON
  process.stdout.write(action === 'status' && o.json !== true ? statusText(answer.body) : JSON.stringify(answer.body) + '\n');
  return answer.status >= 200 && answer.status < 300 ? 0 : 1;
}

/** clear-kill --offline: the latch cleared in the ledger file itself, never under a running bot. */
function offlineClear(reason: string, path: CtlTarget['ledger'] | undefined): number {
  if (!path || path === ':memory:')
    throw new BadInputError('--ledger', 'the ledger file to clear (this config keeps its books in memory: nothing outlives the bot)', path ?? '');
  if (!existsSync(path)) throw new BadInputError('ledger', 'an existing ledger file', path);
  // the clear takes the ledger's write lock (ledger-lock.ts) for its transaction: refused while a
  // bot holds the file, and no bot can start on it halfway through
  let ledger;
  try {
    ledger = openLedger({ path, clock: systemClock, mustExist: true });
  } catch (e) {
    if (!(e instanceof LedgerLockedError)) throw e;
    process.stderr.write(
      `bookmaker ctl: refused: ledger ${path} is in use by a running bookmaker (${describeHolder(e.holder)}): ` +
        `clear the kill switch through that bot (bookmaker ctl clear-kill -c FILE --reason TEXT with ${ADMIN_TOKEN_ENV}), or stop it first; nothing was changed\n`,
    );
    return 2;
  }
  try {
    const was = ledger.clearLatch(reason, 'cli');
    process.stdout.write(JSON.stringify({ cleared: was !== null, was: was?.reason ?? null, ledger: path, bot: 'not running' }) + '\n');
  } finally {
    ledger.close();
  }
  return 0;
}
