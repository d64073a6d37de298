/**
 * A tiny JSON-over-HTTP caller for the local-exchange tests: one function, real HTTP through undici's
 * fetch on its own connection pool (closed with `closeCallers`, so no keep-alive socket holds the
 * test process open), answers parsed with status and headers kept for assertions.
 */
import { Agent, fetch } from 'undici';

const agents = new WeakMap<object, Agent>();

/** Close one caller's connection pool (call when its exchange closes). */
export async function closeCaller(call: object): Promise<void> {
  const a = agents.get(call);
  agents.delete(call);
  await a?.close();
}
export interface Answer<T = any> {
  status: number;
  body: T;
  headers: { get(name: string): string | null };
}

export interface CallOptions {
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export function caller(baseUrl: string) {
  const dispatcher = new Agent({ keepAliveTimeout: 1_000 });
  const fn = async function call<T = any>(method: string, path: string, opts: CallOptions = {}): Promise<Answer<T>> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.key) headers.Authorization = `Bearer ${opts.key}`;
    let payload: string | undefined;
    if (opts.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      payload = JSON.stringify(opts.body);
    }
    const res = await fetch(baseUrl + path, { method, headers, body: payload, dispatcher });
    const text = await res.text();
    let body: unknown = undefined;
    if (text.length) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    return { status: res.status, body: body as T, headers: res.headers };
  };
  agents.set(fn, dispatcher);
  return fn;
}

export type Call = ReturnType<typeof caller>;
