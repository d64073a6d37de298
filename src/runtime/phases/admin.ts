/**
 * The admin phase of the live start-up (src/runtime/bot.ts): the admin endpoint binds before anything
 * else starts. A guessable token is a config error, and a port held by another process stops the
 * start-up at once (AdminPortError, exit 2), before a feed, an order or a ledger write. Until the bot is
 * wired, `ctl status` names the start-up phase and a halt is held (DeferredControls), and written at once to
 * the ledger file the run will open: a start-up that then fails, is stopped or is killed still leaves the
 * halt for the next start to read (docs/control.md).
 */
import type { Logger } from '../../core/logger.ts';
import { registerSecret } from '../../core/logger.ts';
import { ADMIN_TOKEN_ENV, checkAdminToken, DeferredControls, startAdminEndpoint, type AdminEndpoint } from '../../control/admin-server.ts';
import { canonicalPath } from '../../control/identity.ts';
import { systemClock } from '../../core/clock.ts';
import { configHash, ledgerPath } from '../../ledger/bot-ledger.ts';
import { openLedger } from '../../ledger/ledger.ts';
import type { BotOptions } from '../bot-options.ts';

/** The admin endpoint bound before start-up, and the controls it answers with once attached. */
export interface EarlyAdmin {
  readonly endpoint: AdminEndpoint;
  readonly controls: DeferredControls;
}

/** Bind the admin endpoint when a port and the token are set; null when it is off. */
export async function startEarlyAdmin(o: BotOptions, paper: boolean, log: Logger): Promise<EarlyAdmin | null> {
  const adminToken = (o.env ?? process.env)[ADMIN_TOKEN_ENV];
  const adminPort = o.adminPort ?? o.config.admin.port;
  if (adminPort > 0 && adminToken) {
    checkAdminToken(adminToken);
    registerSecret(adminToken);
    const controls = new DeferredControls();
    // while starting, `ctl status` names the phase and `ctl halt` is held until quoting would begin
    controls.phase('venue');
    const admin = { endpoint: await startAdminEndpoint({ port: adminPort, token: adminToken, controls, logger: o.logger }), controls };
    controls.identity(startingIdentity(o, admin.endpoint.port, paper));
    // until the ledger phase opens the books, a halt goes straight to the ledger file (the ledger phase
    // then takes over the recording)
    controls.bindLedger((reason) => recordStartupHalt(o, paper, reason, log));
    return admin;
  }
  if (adminPort > 0) log.info(`admin endpoint off: set ${ADMIN_TOKEN_ENV} to enable bookmaker ctl`);
  return null;
}

/** Who this bot is while it starts (the account and chain are known once the venue is set up). */
export function startingIdentity(o: BotOptions, adminPort: number, paper: boolean): Record<string, unknown> {
  const cfg = o.config;
  return {
    pid: process.pid,
    account: '',
    chain: '',
    configFile: cfg.file ? canonicalPath(cfg.file) : '',
    configHash: configHash(cfg),
    ledger: canonicalPath(runLedgerPath(o, paper)),
    adminPort,
    startedAt: new Date().toISOString(),
  };
}

/** The ledger file this run opens (':memory:' for a `local` venue without ledger.path), known before the venue is. */
function runLedgerPath(o: BotOptions, paper: boolean): string {
  return ledgerPath(o.config, o.config.venue.kind === 'local', paper);
}

/**
 * Write a halt received while starting to the ledger file this run will open (the same path), so that it
 * holds the next start even if this one never reaches the ledger phase. False when it could not be written
 * (an in-memory ledger, another process holding the file, a disk error): the halt then holds this run only,
 * and the answer to `ctl halt` says `persisted: false`.
 */
export function recordStartupHalt(o: BotOptions, paper: boolean, reason: string | null, log: Logger): boolean {
  const cfg = o.config;
  const path = runLedgerPath(o, paper);
  if (path === ':memory:') {
    log.warn('halt received while starting: the ledger is in memory (a local venue), so it holds this run only');
    return false;
  }
  try {
    const ledger = openLedger({ path, clock: o.clock ?? systemClock, logger: o.logger, flushMs: cfg.ledger.flushMs });
    try {
      ledger.operatorAction('halt', null, reason, 'admin', 'every quote pulled until resume (sent during start-up)');
    } finally {
      ledger.close();
    }
    log.warn({ path, reason }, 'halt received while starting: written to the ledger; this start and every later one stay halted until `bookmaker ctl resume`');
    return true;
  } catch (e) {
    log.error(
      { path, err: (e as Error).message },
      'halt received while starting could not be written to the ledger: it holds this run only; if this start fails, send it again once the bot runs',
    );
    return false;
  }
}
