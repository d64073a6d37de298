/**
 * A minimal live VenuePort for tests: signs with the real signer and calls the real venue client
 * (mixed bulk, cancel-replace, paged open orders). The runtime's own adapter is the production
 * version; this one exists so the order manager can be checked against the local exchange early.
 */
import { classify } from '../../src/exchange/client/classify.ts';
import type { BulkOperation } from '../../src/exchange/client/orders-write.ts';
import type { Signer } from '../../src/exchange/signing/signer.ts';
import type { createVenueClient } from '../../src/exchange/venue-client.ts';
import type { Bytes32, LimitOrderBody, VenueOrder } from '../../src/model/order.ts';
import type { BatchResult, CancelOutcome, CreateOutcome, PlannedOrder, VenuePort } from '../../src/model/venue.ts';

type Client = ReturnType<typeof createVenueClient>;

export function httpVenue(client: Client, signer: Signer, batchLimit = 50): VenuePort {
  // one signed body per nonce, so a resend is byte-identical
  const signed = new Map<string, LimitOrderBody>();
  const bodyOf = (p: PlannedOrder): LimitOrderBody => {
    let b = signed.get(p.nonce);
    if (!b) signed.set(p.nonce, (b = signer.signOrder(p)));
    return b;
  };
  const failCreate = (nonce: Bytes32, error: string): CreateOutcome => {
    const migration = /migrat/i.test(error);
    return { ok: false, nonce, code: migration ? 'migration-required' : 'bad-request', message: error, retryable: false, migration };
  };
  return {
    trader: signer.address,
    batchLimit,
    async batch(creates, cancels): Promise<BatchResult> {
      const alreadySent = creates.some((p) => signed.has(p.nonce));
      const ops: BulkOperation[] = [
        ...cancels.map((n) => ({ type: 'cancel' as const, cancel: signer.signCancel(n) })),
        ...creates.map((p) => ({ type: 'create' as const, order: bodyOf(p) })),
      ];
      const res = await client.orders.bulk(ops, { alreadySent });
      if (res.duplicate) {
        return { creates: creates.map((p) => ({ ok: true, nonce: p.nonce, order: null, duplicate: true })), cancels: [] };
      }
      const out: BatchResult = { creates: [], cancels: [] };
      res.results.forEach((r, i) => {
        if (i < cancels.length) {
          const nonce = cancels[i]!;
          out.cancels.push(
            r.ok && r.type === 'cancel'
              ? { ok: true, nonce, alreadyCancelled: r.alreadyCancelled }
              : { ok: false, nonce, code: 'bad-request', message: r.ok ? 'unexpected item' : r.error, retryable: false },
          );
        } else {
          const nonce = creates[i - cancels.length]!.nonce;
          out.creates.push(
            r.ok && r.type === 'create' ? { ok: true, nonce, order: r.order, duplicate: false } : failCreate(nonce, r.ok ? 'unexpected item' : r.error),
          );
        }
      });
      return out;
    },
    async cancelReplace(cancelNonce, create) {
      const alreadySent = signed.has(create.nonce);
      try {
        const r = await client.orders.cancelReplace(signer.signCancel(cancelNonce), bodyOf(create), { alreadySent });
        const cancel: CancelOutcome = { ok: true, nonce: cancelNonce, alreadyCancelled: r.cancel.alreadyCancelled };
        return { cancel, create: { ok: true, nonce: create.nonce, order: r.create.order, duplicate: r.create.duplicate } };
      } catch (err) {
        const c = classify(err);
        const retryable = c.action === 'retry' || c.action === 'backoff';
        const message = err instanceof Error ? err.message : String(err);
        return {
          cancel: { ok: false, nonce: cancelNonce, code: c.reason, message, retryable: true },
          create: { ok: false, nonce: create.nonce, code: c.reason, message, retryable, migration: c.reason === 'migration-required' },
        };
      }
    },
    async openOrders(marketId) {
      const out: VenueOrder[] = [];
      for await (const o of client.orders.iterate({ trader: signer.address, status: ['open'], ...(marketId ? { marketId } : {}) })) out.push(o);
      return out;
    },
  };
}
