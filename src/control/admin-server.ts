/**
 * The operator endpoint behind `bookmaker ctl`: HTTP on 127.0.0.1 only, every request
 * authenticated with `Authorization: Bearer <BOOKMAKER_ADMIN_TOKEN>` (compared in constant time).
 * Without a token in the environment the endpoint does not start (a control port nobody can
 * authenticate to is no use, and one anybody can is a hole).
 *
 *   GET  /admin/status                     → { identity, latched, halted, halt, paused, pauses, markets, retiring }
 *                                            (identity: which bot this is, see identity.ts; ctl checks it);
 *                                            while starting { identity, starting, phase, since, halted, halt }
 *                                            (DeferredControls: a halt is accepted then, other actions are 503)
 *   POST /admin/clear-kill  {reason}       → { cleared }
 *   POST /admin/pause       {market?, reason?}   (no market = every market: same as halt)
 *   POST /admin/resume      {market?, reason?}   (no market = lift the halt and every pause)
 *   POST /admin/halt        {reason?}
 *   POST /admin/reload      {reason?}      → { added, removed, changed, ignored } or 400 { error }
 *
 * Answers are JSON; errors are `{ error }` with 400 (bad request or refused config), 401 (token),
 * 404 (unknown path or market), 405, 409 (nothing to do, e.g. clear-kill without a latch is 200 with
 * cleared: false). The token never appears in a log line or an answer.
 *
 * a token shorter than MIN_ADMIN_TOKEN_LENGTH is a config error (checkAdminToken), and a
 * port that cannot be bound is an AdminPortError (exit 2, naming the port and its holder when known):
 * a bot whose controls would reach another process must not run.
 *
 * The metrics port's connection limits hold here too (src/metrics/endpoint-limits.ts: idle 10 s, headers
 * 5 s, request 10 s, at most 64 connections), so clients that stall cost neither file descriptors nor the
 * quoting loop's time; the idle limit is off while a request is being answered.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { timingSafeEqual, createHash } from 'node:crypto';
import type { AddressInfo, Socket } from 'node:net';
import type { Logger } from '../core/logger.ts';
import { ConfigError } from '../model/errors.ts';
import { bytes32Of } from '../model/ids.ts';
import type { Bytes32 } from '../model/order.ts';
import { ENDPOINT_IDLE_MS, limitEndpointServer } from '../metrics/endpoint-limits.ts';
import { describeHolder, portHolder, type PortHolder } from './port-holder.ts';
import { HMAC_SCHEME, hmacVerifier } from './admin-auth.ts';

export interface ControlResult {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** What the endpoint drives (src/control/bot-control.ts implements it over the running bot). */
export interface Controls {
  status(): Record<string, unknown>;
  clearKill(reason: string): ControlResult | Promise<ControlResult>;
  pause(market: Bytes32 | null, reason: string | null): ControlResult | Promise<ControlResult>;
  resume(market: Bytes32 | null, reason: string | null): ControlResult | Promise<ControlResult>;
  halt(reason: string | null): ControlResult | Promise<ControlResult>;
  reload(reason: string | null): ControlResult | Promise<ControlResult>;
  /** false while the bot is still starting (DeferredControls answers for it then) */
  ready?(): boolean;
}

/** A halt sent while the bot starts: held, and applied before its first quote. */
export interface StartupHalt {
  readonly reason: string | null;
  /** ms since the epoch */
  readonly at: number;
  /** written to the ledger (durable): once the ledger is open */
  persisted: boolean;
}

/**
 * The controls of a bot still starting: the endpoint binds before anything else starts, so
 * a port held by another process stops the start-up at once. Until `attach`:
 *   - GET /admin/status answers 200 `{ starting: true, phase, since, identity, halted, halt }`, so
 *     `ctl status` says where the start-up is and `ctl` can check which bot answers;
 *   - POST /admin/halt is accepted (200 `{ halted: true, starting: true, phase, persisted }`): kept in
 *     memory, written to the ledger as soon as it is open (`bindLedger`; at once after that), and
 *     applied before the first quote (the bot reads it back with the ledger's operator holds, or
 *     from `startupHalt` at attach);
 *   - every other action answers 503 naming the phase (try again once the bot runs).
 */
export class DeferredControls implements Controls {
  private c: Controls | null = null;
  private phaseName = 'starting';
  private phaseSince = Date.now();
  private id: Record<string, unknown> | null = null;
  private readonly halts: StartupHalt[] = [];
  private recorder: ((reason: string | null) => boolean) | null = null;

  attach(c: Controls): void {
    this.c = c;
  }
  ready(): boolean {
    return this.c !== null;
  }
  /** Where the start-up is (venue, select markets, migration, ledger and catch-up, books, reconcile). */
  phase(name: string): void {
    this.phaseName = name;
    this.phaseSince = Date.now();
  }
  get currentPhase(): string {
    return this.phaseName;
  }
  /** Who this bot is, as far as known yet (see identity.ts; `ctl` checks it before it acts). */
  identity(id: Record<string, unknown>): void {
    this.id = id;
  }
  /**
   * The ledger is open: halts received so far are written to it, later ones at once. `record`
   * returns whether the write succeeded (a halt that cannot be written still holds this process).
   */
  bindLedger(record: (reason: string | null) => boolean): void {
    this.recorder = record;
    for (const h of this.halts) if (!h.persisted) h.persisted = record(h.reason);
  }
  /** The last halt received while starting (null: none). */
  get startupHalt(): StartupHalt | null {
    return this.halts[this.halts.length - 1] ?? null;
  }
  private notYet(): ControlResult {
    return {
      status: 503,
      body: {
        error: `the bot is starting (${this.phaseName}): only status and halt answer until it runs; try again in a moment`,
        starting: true,
        phase: this.phaseName,
      },
    };
  }
  status(): Record<string, unknown> {
    if (this.c) return this.c.status();
    const h = this.startupHalt;
    return {
      ...(this.id ? { identity: this.id } : {}),
      starting: true,
      phase: this.phaseName,
      since: new Date(this.phaseSince).toISOString(),
      halted: h !== null,
      halt: h ? { reason: h.reason, since: new Date(h.at).toISOString(), source: 'admin', persisted: h.persisted } : null,
    };
  }
  clearKill(reason: string): ControlResult | Promise<ControlResult> {
    return this.c ? this.c.clearKill(reason) : this.notYet();
  }
  pause(market: Bytes32 | null, reason: string | null): ControlResult | Promise<ControlResult> {
    if (this.c) return this.c.pause(market, reason);
    return market === null ? this.halt(reason) : this.notYet();
  }
  resume(market: Bytes32 | null, reason: string | null): ControlResult | Promise<ControlResult> {
    return this.c ? this.c.resume(market, reason) : this.notYet();
  }
  halt(reason: string | null): ControlResult | Promise<ControlResult> {
    if (this.c) return this.c.halt(reason);
    const h: StartupHalt = { reason, at: Date.now(), persisted: false };
    if (this.recorder) h.persisted = this.recorder(reason);
    this.halts.push(h);
    return { status: 200, body: { halted: true, starting: true, phase: this.phaseName, persisted: h.persisted } };
  }
  reload(reason: string | null): ControlResult | Promise<ControlResult> {
    return this.c ? this.c.reload(reason) : this.notYet();
  }
}

export interface AdminEndpoint {
  readonly url: string;
  /** the port bound (the configured one, or the one picked for port 0) */
  readonly port: number;
  /** requests refused for a missing or wrong token since the endpoint started (bookmaker_admin_requests_refused_total) */
  refused(): number;
  close(): Promise<void>;
}

export const ADMIN_TOKEN_ENV = 'BOOKMAKER_ADMIN_TOKEN';
export const MIN_ADMIN_TOKEN_LENGTH = 16;

/** A token anyone could guess is refused (a config error, exit 2); the token itself is never in the message. */
export function checkAdminToken(token: string): void {
  if (token.trim().length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new ConfigError(
      `${ADMIN_TOKEN_ENV} is too short (${token.trim().length} characters; at least ${MIN_ADMIN_TOKEN_LENGTH}): use a random one, e.g. \`openssl rand -hex 24\``,
    );
  }
}

/** The admin port could not be bound: the bot does not start (exit 2). */
export class AdminPortError extends ConfigError {
  readonly port: number;
  readonly holder: PortHolder | null;
  constructor(port: number, code: string, holder: PortHolder | null) {
    super(
      `admin port ${port} on 127.0.0.1 cannot be bound (${code}; ${describeHolder(holder)}): bookmaker ctl would reach that process instead of this bot. ` +
        `Stop it, or give this bot another admin.port (BOOKMAKER_ADMIN_PORT; 0 = off), or unset ${ADMIN_TOKEN_ENV} to run without the admin endpoint`,
    );
    this.port = port;
    this.holder = holder;
  }
}

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** A bearer token, or (what ctl sends) a one-time proof of it bound to this request (admin-auth.ts). */
function authorised(req: IncomingMessage, path: string, raw: Buffer, token: string, tokenDigest: Buffer, hmac: ReturnType<typeof hmacVerifier>): boolean {
  const h = req.headers.authorization;
  if (typeof h !== 'string') return false;
  if (h.startsWith(`${HMAC_SCHEME} `)) return hmac(h, token, req.method ?? 'GET', path, raw);
  if (!h.startsWith('Bearer ')) return false;
  return timingSafeEqual(digest(h.slice(7).trim()), tokenDigest);
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body) + '\n';
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(text);
}

async function readRaw(req: IncomingMessage): Promise<Buffer> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > 16_384) throw new Error('body too large (16 KiB at most)');
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}

function parseJson(raw: Buffer): Record<string, unknown> {
  if (raw.length === 0) return {};
  const v: unknown = JSON.parse(raw.toString('utf8'));
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('body must be a JSON object');
  return v as Record<string, unknown>;
}

function optString(o: Record<string, unknown>, k: string, max: number): string | null {
  const v = o[k];
  if (v === undefined || v === null || v === '') return null;
  if (typeof v !== 'string' || v.length > max) throw new Error(`${k}: expected a string of at most ${max} characters`);
  return v;
}

/** The body's market, normalised here where it enters (docs/architecture.md#ids-at-the-boundary); null when absent. */
function optMarket(o: Record<string, unknown>): Bytes32 | null {
  const v = optString(o, 'market', 200);
  if (v === null) return null;
  const id = bytes32Of(v);
  if (id === null) throw new Error('market: expected a 0x market id (64 hex digits)');
  return id;
}

export async function startAdminEndpoint(o: { port: number; token: string; controls: Controls; logger: Logger }): Promise<AdminEndpoint> {
  checkAdminToken(o.token);
  const log = o.logger.child({ component: 'admin' });
  const tokenDigest = digest(o.token);
  const hmac = hmacVerifier();
  let refused = 0;
  // requests being answered, by connection: the idle limit is for clients that stall, not for an action
  // that takes long (a reload reading the venue), so it is off while one is answered
  const working = new WeakMap<Socket, number>();
  const server: Server = limitEndpointServer(
    createServer((req, res) => {
      const socket = req.socket;
      working.set(socket, (working.get(socket) ?? 0) + 1);
      socket.setTimeout(0);
      void handle(req, res)
        .catch((e: unknown) => {
          if (!res.headersSent) send(res, 500, { error: (e as Error).message });
        })
        .finally(() => {
          const n = (working.get(socket) ?? 1) - 1;
          working.set(socket, n);
          if (n === 0 && !socket.destroyed) socket.setTimeout(ENDPOINT_IDLE_MS);
        });
    }),
  );
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    // the body is read first (bounded): ctl's proof covers it
    let raw: Buffer;
    try {
      raw = await readRaw(req);
    } catch (e) {
      return send(res, 400, { error: (e as Error).message });
    }
    if (!authorised(req, path, raw, o.token, tokenDigest, hmac)) {
      refused++;
      log.warn({ path, refused }, 'admin request refused: bad or missing token');
      return send(res, 401, { error: 'missing or wrong bearer token (BOOKMAKER_ADMIN_TOKEN)' });
    }
    if (path === '/admin/status') {
      if (req.method !== 'GET') return send(res, 405, { error: 'GET only' });
      return send(res, 200, o.controls.status());
    }
    const action = /^\/admin\/(clear-kill|pause|resume|halt|reload)$/.exec(path)?.[1];
    if (!action) return send(res, 404, { error: `unknown path ${path}` });
    if (req.method !== 'POST') return send(res, 405, { error: 'POST only' });
    let body: Record<string, unknown>;
    let reason: string | null;
    let market: Bytes32 | null;
    try {
      body = parseJson(raw);
      reason = optString(body, 'reason', 500);
      market = optMarket(body);
    } catch (e) {
      return send(res, 400, { error: (e as Error).message });
    }
    let r: ControlResult;
    switch (action) {
      case 'clear-kill':
        if (!reason) return send(res, 400, { error: 'reason: required (why the kill switch may be cleared)' });
        r = await o.controls.clearKill(reason);
        break;
      case 'pause':
        r = await o.controls.pause(market, reason);
        break;
      case 'resume':
        r = await o.controls.resume(market, reason);
        break;
      case 'halt':
        r = await o.controls.halt(reason);
        break;
      default:
        r = await o.controls.reload(reason);
    }
    log.info({ action, market, reason, status: r.status }, 'operator action');
    send(res, r.status, r.body);
  }
  await new Promise<void>((resolve, reject) => {
    const failed = (e: NodeJS.ErrnoException): void =>
      reject(new AdminPortError(o.port, e.code ?? 'ERROR', e.code === 'EADDRINUSE' ? portHolder(o.port) : null));
    server.once('error', failed);
    server.listen(o.port, '127.0.0.1', () => {
      server.off('error', failed);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  log.info({ url }, 'admin endpoint listening');
  return {
    url,
    port,
    refused: () => refused,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
