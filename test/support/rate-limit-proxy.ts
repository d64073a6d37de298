/**
 * A venue that rate-limits: an HTTP proxy in front of a real one (a `bookmaker sim`) that answers 429
 * (with `Retry-After`) to the requests `limit` picks, and passes every other request through, streams
 * included. Start-up tests point the bot at it to restart it into a 429 burst. `o.hold` makes it a venue that
 * stalls: the requests it picks are never answered (until close).
 *
 *   const p = await rateLimitProxy(sim.baseUrl, (req) => req.method === 'GET' && req.path.startsWith('/v2/orders'));
 *   … --base-url p.baseUrl …   p.limited   // 429s answered so far
 *   await p.close();
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';

export interface RateLimitProxy {
  readonly baseUrl: string;
  /** 429s answered so far */
  readonly limited: number;
  /** requests passed through so far */
  readonly passed: number;
  /** the requests answered 429, as `METHOD path` */
  readonly limitedPaths: readonly string[];
  /** requests left unanswered so far (`o.hold`) */
  readonly held: number;
  close(): Promise<void>;
}

export interface ProxiedRequest {
  method: string;
  /** path and query, e.g. `/v2/orders?trader=…` */
  path: string;
}

/** `limit(req)` true: answer 429 with `Retry-After: retryAfterSeconds` (default 1). */
export async function rateLimitProxy(
  target: string,
  limit: (req: ProxiedRequest) => boolean,
  retryAfterSeconds = 1,
  o: { hold?: (req: ProxiedRequest) => boolean } = {},
): Promise<RateLimitProxy> {
  const to = new URL(target);
  const prefix = to.pathname.replace(/\/$/, '');
  let limited = 0;
  let passed = 0;
  let held = 0;
  const limitedPaths: string[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    if (o.hold?.({ method: req.method ?? 'GET', path })) {
      held++;
      req.resume();
      return; // never answered: its socket is destroyed at close
    }
    if (limit({ method: req.method ?? 'GET', path })) {
      limited++;
      limitedPaths.push(`${req.method} ${path}`);
      req.resume();
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(retryAfterSeconds) });
      res.end(JSON.stringify({ code: 'rate_limited', message: 'too many requests (test proxy)' }));
      return;
    }
    passed++;
    const up = request(
      {
        host: to.hostname,
        port: to.port,
        method: req.method,
        path: path.startsWith(prefix) ? path : prefix + path,
        headers: { ...req.headers, host: to.host },
      },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    res.on('close', () => up.destroy());
    req.pipe(up);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    baseUrl: `http://127.0.0.1:${port}${prefix}`,
    get limited() {
      return limited;
    },
    get passed() {
      return passed;
    },
    get held() {
      return held;
    },
    limitedPaths,
    close() {
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
