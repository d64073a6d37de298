/**
 * The admin phase of the live start-up (src/runtime/bot.ts): the admin endpoint binds before anything
 * else starts. A guessable token is a config error, and a port held by another process stops the
 * start-up at once (AdminPortError, exit 2), before a feed, an order or a ledger write. Until the bot is
 * wired, `ctl status` names the start-up phase and a halt is held (DeferredControls).
 */
import type { Logger } from '../../core/logger.ts';
import { registerSecret } from '../../core/logger.ts';
import { ADMIN_TOKEN_ENV, checkAdminToken, DeferredControls, startAdminEndpoint, type AdminEndpoint } from '../../control/admin-server.ts';
import { canonicalPath } from '../../control/identity.ts';
import { configHash, ledgerPath } from '../../ledger/bot-ledger.ts';
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
    ledger: canonicalPath(ledgerPath(cfg, cfg.venue.kind === 'local', paper)),
    adminPort,
    startedAt: new Date().toISOString(),
  };
}
