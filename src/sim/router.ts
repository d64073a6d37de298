/**
 * The route table of the local exchange.
 *
 * A route is `{ method, path, auth, permission?, handler }`. `path` is relative to the `/v2` base
 * and may hold `:name` parameters (`/orders/:id`); a parameter matches one non-empty segment and
 * arrives URI-decoded in `ctx.params`. Static segments win over parameters, so `/orders/recent`
 * beats `/orders/:id` whatever the registration order.
 *
 * HOW ROUTE FILES PLUG IN: every route module (src/sim/routes/*.ts and
 * src/sim/routes/account/*.ts) exports
 *
 *     export function register(router: Router): void
 *
 * and calls `router.add({...})` once per route. The server imports the modules it mounts and calls
 * `register` on each, in the order of `ROUTE_MODULES` in ./route-modules.ts (adding a module there is a one-line
 * change).
 *
 * A handler gets a RequestContext (./context.ts) and returns a Reply (status + JSON body + headers),
 * or `{ kind: 'handled' }` when it wrote the raw response itself (SSE). It reports failure by
 * throwing an HttpError (./http-errors.ts); anything else thrown becomes a 500 without internals.
 * Authentication (401), permissions (403), rate limits (429), body parsing (400/413) and fault
 * injection run before the handler; handlers never repeat them.
 */
import type { RequestContext } from './context.ts';
import type { Permission } from './records.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Every permission an API key may hold (`Permission`, records.ts). */
export const ALL_PERMISSIONS: readonly Permission[] = ['read', 'trade', 'can_create_markets', 'admin'];
/** What a key gets when its permissions are not given. */
export const DEFAULT_PERMISSIONS: readonly Permission[] = ['read', 'trade'];

export type JsonReply = {
  kind?: 'json';
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
};
/** The handler wrote the response itself (e.g. an event stream). */
export type HandledReply = { kind: 'handled' };
export type Reply = JsonReply | HandledReply;

export type Handler = (ctx: RequestContext) => Reply | Promise<Reply>;

export interface Route {
  method: Method;
  /** relative to the /v2 base, e.g. '/orders/:id' */
  path: string;
  /** true: a valid `Authorization: Bearer KEY` is required (401 otherwise) */
  auth: boolean;
  /** a permission the key must hold (403 otherwise); only meaningful with auth */
  permission?: Permission;
  /**
   * true on public routes that still use the caller's key when one is sent (e.g. simulate with
   * SELF_TRADE warnings); an unknown key on such a route is still 401.
   */
  optionalAuth?: boolean;
  /** a POST that changes nothing (e.g. simulate): never journalled */
  readOnly?: boolean;
  /** rate-limit cost in tokens (default 1) */
  cost?: number;
  handler: Handler;
}

export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

type Segment = { kind: 'static'; text: string } | { kind: 'param'; name: string };

interface CompiledRoute {
  route: Route;
  segments: Segment[];
  /** static segments count: more static = more specific */
  staticCount: number;
}

function splitPath(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0);
}

function compile(route: Route): CompiledRoute {
  const segments: Segment[] = splitPath(route.path).map((s) => (s.startsWith(':') ? { kind: 'param', name: s.slice(1) } : { kind: 'static', text: s }));
  return { route, segments, staticCount: segments.filter((s) => s.kind === 'static').length };
}

export type LookupResult = { ok: true; match: RouteMatch } | { ok: false; status: 404 | 405; allowed: Method[] };

export class Router {
  private readonly routes: CompiledRoute[] = [];
  /**
   * routes without parameters by `METHOD path`: a request for exactly such a path takes it without
   * the scan (a fully static route is the most specific match of its path, so the answer is the same)
   */
  private readonly exact = new Map<string, Route>();

  add(route: Route): void {
    const c = compile(route);
    const dup = this.routes.find((r) => r.route.method === route.method && r.route.path === route.path);
    if (dup) throw new Error(`route registered twice: ${route.method} ${route.path}`);
    this.routes.push(c);
    if (c.staticCount === c.segments.length) this.exact.set(`${route.method} ${route.path}`, route);
    // most specific first: static segments beat parameters at equal length
    this.routes.sort((a, b) => b.staticCount - a.staticCount);
  }

  list(): readonly Route[] {
    return this.routes.map((r) => r.route);
  }

  /** Find the route for a method and a path relative to the base (already without `/v2`). */
  lookup(method: string, path: string): LookupResult {
    const hit = this.exact.get(`${method} ${path}`);
    if (hit) return { ok: true, match: { route: hit, params: {} } };
    const parts = splitPath(path);
    const allowed: Method[] = [];
    for (const c of this.routes) {
      const params = matchSegments(c.segments, parts);
      if (!params) continue;
      if (c.route.method === method) return { ok: true, match: { route: c.route, params } };
      allowed.push(c.route.method);
    }
    return allowed.length ? { ok: false, status: 405, allowed } : { ok: false, status: 404, allowed };
  }
}

function matchSegments(segments: Segment[], parts: string[]): Record<string, string> | null {
  if (segments.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i]!;
    const p = parts[i]!;
    if (s.kind === 'static') {
      if (s.text !== p) return null;
    } else {
      let v: string;
      try {
        v = decodeURIComponent(p);
      } catch {
        return null; // malformed escapes never match (→ 404), never throw
      }
      params[s.name] = v;
    }
  }
  return params;
}

/** JSON reply helper. */
export function json(status: number, body: unknown, headers?: Record<string, string>): JsonReply {
  return headers ? { status, body, headers } : { status, body };
}
