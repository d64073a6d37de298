/**
 * `bookmaker ctl clear-kill|reload|pause|resume|halt|status [MARKET] -c FILE [--reason TEXT]`:
 * operator control of a running bot over its admin endpoint (127.0.0.1:admin.port, bearer token
 * from BOOKMAKER_ADMIN_TOKEN). `clear-kill` also works with no bot running: it then clears the latch
 * in the ledger file itself (recorded as an operator action, source 'cli'), so a bot that exited on
 * its kill switch starts quoting at its next start.
 */
import { request } from 'undici';
import type { CommandSpec, ParsedArgs } from '../args.ts';
import { loadConfig } from '../../config/load-config.ts';
import { ADMIN_TOKEN_ENV } from '../../control/admin-server.ts';
import { ledgerPath } from '../../ledger/bot-ledger.ts';
import { openLedger } from '../../ledger/ledger.ts';
import { systemClock } from '../../core/clock.ts';
import { BadInputError, BookmakerError } from '../../model/errors.ts';
import { existsSync } from 'node:fs';

const ACTIONS = ['clear-kill', 'reload', 'pause', 'resume', 'halt', 'status'] as const;
type Action = (typeof ACTIONS)[number];

const command: CommandSpec = {
  name: 'ctl',
  summary: 'control a running bot: clear-kill, reload, pause, resume, halt, status',
  usage: 'bookmaker ctl clear-kill|reload|pause|resume|halt|status [MARKET] -c FILE [--reason TEXT] [--port P] [--ledger PATH]',
  description:
    `Talks to the bot's admin endpoint on 127.0.0.1 (config admin.port, default 9465) with the token in ${ADMIN_TOKEN_ENV}. ` +
    'clear-kill needs --reason (recorded in the ledger) and, with no bot answering, clears the latch in the ledger file directly. ' +
    'pause/resume take a market id (resume without one lifts the halt and every pause); halt pulls every quote until resume; ' +
    'reload re-reads the config file (same as SIGHUP): a bad file is refused and the running config stays.',
  positionals: ['action', '[MARKET]'],
  options: {
    config: { type: 'string', short: 'c', description: 'the YAML config the bot runs with', arg: 'FILE' },
    reason: { type: 'string', description: 'why (recorded with the action; required for clear-kill)', arg: 'TEXT' },
    port: { type: 'number', description: 'admin port (default: the config admin.port)', arg: 'P' },
    ledger: { type: 'string', description: 'ledger file for an offline clear-kill (default from the config)', arg: 'PATH' },
  },
  run,
};
export default command;

async function run(args: ParsedArgs): Promise<number> {
  const o = args.options;
  const action = args.positionals[0] as Action | undefined;
  if (!action || !ACTIONS.includes(action)) throw new BadInputError('action', `one of ${ACTIONS.join(', ')}`, action ?? '');
  const market = args.positionals[1];
  if (args.positionals.length > 2) throw new BadInputError('arguments', 'an action and at most one market', args.positionals.join(' '));
  if (market !== undefined && !['pause', 'resume'].includes(action)) throw new BadInputError('MARKET', `no market for ${action}`, market);
  if (market !== undefined && !/^0x[0-9a-fA-F]{64}$/.test(market)) throw new BadInputError('MARKET', 'a 0x market id (64 hex digits)', market);
  if (action === 'pause' && market === undefined) throw new BadInputError('MARKET', 'a market to pause (halt pauses every market)', '');
  const reason = o.reason as string | undefined;
  if (action === 'clear-kill' && (!reason || reason.trim() === '')) throw new BadInputError('--reason', 'why the kill switch may be cleared (it is recorded)', reason ?? '');
  const file = o.config as string | undefined;
  const cfg = file ? await loadConfig(file, { env: process.env }) : null;
  const port = (o.port as number | undefined) ?? cfg?.admin.port;
  if (port === undefined) throw new BadInputError('--config', 'a config file (-c FILE) or --port', file);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new BadInputError('--port', 'an integer from 1 to 65535', port);
  const token = process.env[ADMIN_TOKEN_ENV];

  const body = JSON.stringify({ ...(reason ? { reason } : {}), ...(market ? { market } : {}) });
  let answer: { status: number; body: unknown } | null = null;
  if (token) {
    try {
      const res = await request(`http://127.0.0.1:${port}/admin/${action}`, {
        method: action === 'status' ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(action === 'status' ? {} : { body }),
        headersTimeout: 60_000,
        bodyTimeout: 60_000,
      });
      answer = { status: res.statusCode, body: await res.body.json().catch(() => null) };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ECONNREFUSED' || action !== 'clear-kill') throw new BookmakerError('NETWORK', `no bot answers on 127.0.0.1:${port} (${code ?? (e as Error).message})`, { cause: e });
    }
  } else if (action !== 'clear-kill') {
    throw new BadInputError(ADMIN_TOKEN_ENV, 'the admin token the bot was started with (environment)', '(unset)');
  }
  if (answer) {
    process.stdout.write(JSON.stringify(answer.body) + '\n');
    return answer.status >= 200 && answer.status < 300 ? 0 : 1;
  }
  // clear-kill with no bot running: clear the latch in the ledger file itself
  const path = (o.ledger as string | undefined) ?? (cfg ? ledgerPath(cfg, false) : undefined);
  if (!path || path === ':memory:') throw new BadInputError('--ledger', 'the ledger file (no bot answered, so the file is cleared directly)', path ?? '');
  if (!existsSync(path)) throw new BadInputError('ledger', 'an existing ledger file', path);
  const ledger = openLedger({ path, clock: systemClock, mustExist: true });
  try {
    const was = ledger.clearLatch(reason!, 'cli');
    process.stdout.write(JSON.stringify({ cleared: was !== null, was: was?.reason ?? null, ledger: path, bot: 'not running' }) + '\n');
  } finally {
    ledger.close();
  }
  return 0;
}
