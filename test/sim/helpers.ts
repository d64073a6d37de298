/** Test helpers: a local exchange with two funded keys and their signers, and small HTTP wrappers. */
import { createLocalExchange, type LocalExchange, type LocalExchangeOptions } from '../../src/sim/local-exchange.ts';
import { createSigner, type Signer } from '../../src/exchange/signing/signer.ts';
import { TESTNET } from '../../src/exchange/chains.ts';
import type { Bytes32 } from '../../src/model/order.ts';

export interface Harness {
  ex: LocalExchange;
  base: string;
  alice: Signer;
  bob: Signer;
  marketId: Bytes32;
  close(): Promise<void>;
}

export async function harness(opts: LocalExchangeOptions = {}): Promise<Harness> {
  const ex = createLocalExchange({
    seed: 11,
    apiKeys: [{ key: 'alice-key' }, { key: 'bob-key' }, { key: 'reader-key', perms: ['read'] }],
    expirySweepMs: 0,
    ...opts,
  });
  const base = await ex.start(0);
  const alice = createSigner({ privateKey: ex.state.keys.get('alice-key')!.privateKey!, chain: TESTNET });
  const bob = createSigner({ privateKey: ex.state.keys.get('bob-key')!.privateKey!, chain: TESTNET });
  const marketId = [...ex.state.stores.markets.values()][0]!.id;
  return { ex, base, alice, bob, marketId, close: () => ex.close() };
}

/** `body` on a fresh harness (`opts` as for `harness`), closed after it whatever it did. */
export async function onHarness<T>(body: (h: Harness) => Promise<T>, opts: LocalExchangeOptions = {}): Promise<T> {
  const h = await harness(opts);
  try {
    return await body(h);
  } finally {
    await h.close();
  }
}

export interface Res {
  status: number;
  body: any;
  headers: Headers;
}

export async function call(base: string, method: string, path: string, body?: unknown, key?: string, headers: Record<string, string> = {}): Promise<Res> {
  const h: Record<string, string> = { ...headers };
  if (key) h.authorization = `Bearer ${key}`;
  if (body !== undefined) h['content-type'] = 'application/json';
  const r = await fetch(base + path, { method, headers: h, ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}) });
  const text = await r.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: r.status, body: parsed, headers: r.headers };
}

/** `POST /orders` as `key` (alice's by default): a bid for one YES at `price` in the harness's market, signed by `signer`. */
export function placeBid(h: Harness, signer: Signer, price: number, key = 'alice-key'): Promise<Res> {
  return call(h.base, 'POST', '/orders', signer.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price, size: 1_000_000 }), key);
}

/** One operation of `POST /orders/bulk`: a create of a signed order, or a cancel. */
export const createOp = (order: unknown) => ({ type: 'create' as const, order });
export const cancelOp = (cancel: unknown) => ({ type: 'cancel' as const, cancel });

/** `POST /orders/bulk` with these operations, as `key`. */
export function bulk(base: string, key: string, ...operations: unknown[]): Promise<Res> {
  return call(base, 'POST', '/orders/bulk', { operations }, key);
}

/** Read SSE frames from a streaming response until `until` returns true or the timeout passes. */
export async function readSse(
  url: string,
  headers: Record<string, string>,
  until: (frames: { event: string; id: string | undefined; data: any }[], comments: string[]) => boolean,
  timeoutMs = 5000,
): Promise<{ frames: { event: string; id: string | undefined; data: any }[]; comments: string[] }> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), timeoutMs);
  const frames: { event: string; id: string | undefined; data: any }[] = [];
  const comments: string[] = [];
  try {
    const r = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: ac.signal });
    const reader = r.body!.getReader();
    const dec = new TextDecoder();
    let buf = '';
    while (!until(frames, comments)) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += dec.decode(value, { stream: true });
      let i: number;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        let event = 'message';
        let id: string | undefined;
        let data = '';
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) comments.push(line);
          else if (line.startsWith('event: ')) event = line.slice(7);
          else if (line.startsWith('id: ')) id = line.slice(4);
          else if (line.startsWith('data: ')) data += line.slice(6);
        }
        if (data) frames.push({ event, id, data: JSON.parse(data) });
      }
    }
  } catch (e) {
    if (!(e instanceof Error && e.name === 'AbortError')) throw e;
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
  return { frames, comments };
}
