/**
 * The venue phase of the live start-up (src/runtime/bot.ts), after the keys are read (venue-setup.ts):
 * the watchdog armed with what it needs to cancel from its own thread, the venue client (its latency on
 * /metrics) and the signer.
 */
import { createSigner, type Signer } from '../../exchange/signing/signer.ts';
import { createVenueClient, type VenueClient } from '../../exchange/venue-client.ts';
import { MAX_ORDER_CALLS_IN_FLIGHT } from '../live-venue.ts';
import type { BotOptions } from '../bot-options.ts';
import type { VenueSetup } from '../venue-setup.ts';
import type { StartContext } from './start-context.ts';

export interface VenuePhase {
  readonly client: VenueClient;
  /** null in paper mode without a key */
  readonly signer: Signer | null;
}

/** Arm the event-loop watchdog (when there is one) with the venue's keys, or as paper / embedded. */
export function armWatchdog(o: BotOptions, v: VenueSetup, paper: boolean): void {
  if (!o.watchdog) return;
  if (paper) o.watchdog.arm({ kind: 'paper' });
  else if (v.local) o.watchdog.arm({ kind: 'embedded' });
  else if (v.privateKey && v.apiKey)
    o.watchdog.arm({ kind: 'live', baseUrl: v.baseUrl, chain: v.chain, apiKey: v.apiKey, privateKey: v.privateKey, batchLimit: o.config.orders.batchLimit });
}

/**
 * Keep-alive connections to the venue: one per order call in flight (MAX_ORDER_CALLS_IN_FLIGHT) and 8
 * for the polls, so every request the bot sends is written at once. With fewer, the calls beyond the
 * pool waited in the HTTP client's queue with their 10 s timeout running: after a stall or a burst
 * they timed out unsent, told as "no answer within 10000 ms" (docs/performance.md).
 */
export const VENUE_CONNECTIONS = MAX_ORDER_CALLS_IN_FLIGHT + 8;

export function venuePhase(c: StartContext): VenuePhase {
  const { v, metrics } = c;
  const client = createVenueClient({
    baseUrl: v.baseUrl,
    chain: v.chain,
    ...(v.apiKey ? { apiKey: v.apiKey } : {}),
    logger: c.o.logger,
    connections: VENUE_CONNECTIONS,
    onResponse: (r) => metrics.apiLatency.observe({ method: r.method, endpoint: r.endpoint, status: r.status }, r.seconds),
  });
  c.life.add(() => client.close());
  const signer = v.privateKey ? createSigner({ privateKey: v.privateKey, chain: v.chain }) : null;
  return { client, signer };
}
