/**
 * How `bookmaker ctl` proves it holds the admin token without sending it: each request
 * carries `Authorization: Bookmaker-HMAC ts=<ms>,nonce=<hex>,mac=<hex>`, where mac is
 * HMAC-SHA256(token, method \n path \n ts \n nonce \n sha256(body)). Whatever answers on the port — the
 * bot, or a process that took its port — sees a one-time proof bound to that request, never the
 * token. The endpoint accepts a proof within ±30 s of its clock and each nonce once; a plain
 * `Authorization: Bearer <token>` (curl, scripts) is still accepted.
 *
 *   signRequest(token, 'POST', '/admin/halt', body)          → the header value
 *   const check = hmacVerifier(); check(header, token, method, path, body) → true | false
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const HMAC_SCHEME = 'Bookmaker-HMAC';
const WINDOW_MS = 30_000;

const sha256 = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');
const mac = (token: string, method: string, path: string, ts: string, nonce: string, body: Buffer | string): string =>
  createHmac('sha256', token)
    .update(`${method.toUpperCase()}\n${path}\n${ts}\n${nonce}\n${sha256(body)}`)
    .digest('hex');

export function signRequest(token: string, method: string, path: string, body: string, now = Date.now()): string {
  const ts = String(now);
  const nonce = randomBytes(16).toString('hex');
  return `${HMAC_SCHEME} ts=${ts},nonce=${nonce},mac=${mac(token, method, path, ts, nonce, body)}`;
}

/** A verifier with its own memory of the nonces seen in the window (one per endpoint). */
export function hmacVerifier(clock: () => number = Date.now): (header: string, token: string, method: string, path: string, body: Buffer) => boolean {
  const seen = new Map<string, number>();
  return (header, token, method, path, body) => {
    const m = /^Bookmaker-HMAC ts=(\d{1,16}),nonce=([0-9a-f]{16,64}),mac=([0-9a-f]{64})$/.exec(header.trim());
    if (!m) return false;
    const [, ts, nonce, got] = m as unknown as [string, string, string, string];
    const now = clock();
    if (Math.abs(now - Number(ts)) > WINDOW_MS) return false;
    for (const [n, until] of seen) if (until < now) seen.delete(n);
    if (seen.has(nonce) || seen.size > 10_000) return false;
    const want = Buffer.from(mac(token, method, path, ts, nonce, body), 'hex');
    if (!timingSafeEqual(want, Buffer.from(got, 'hex'))) return false;
    seen.set(nonce, now + 2 * WINDOW_MS);
    return true;
  };
}
