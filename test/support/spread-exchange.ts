/** A local exchange of four markets whose YES books have spreads of 2¢, 10¢ and 6¢, the fourth book empty: the ranking fixture of the CLI tests. */
import assert from 'node:assert/strict';
import { createLocalExchange, type LocalExchange } from '../../src/sim/local-exchange.ts';
import { derivedAddress } from '../../src/sim/market-factory.ts';
import { toSubmitOrder } from '../../src/sim/agents/order-builder.ts';

export interface SpreadExchange {
  ex: LocalExchange;
  baseUrl: string;
  /** market ids (lower case) by their YES spread in cents (0 = empty book) */
  bySpread: Map<number, string>;
}

/** Starts the exchange (a `reader` key with read permission) and fills three books with a maker named `maker`. */
export async function startSpreadExchange(maker: string): Promise<SpreadExchange> {
  const ex = createLocalExchange({
    seed: 11,
    markets: 4,
    apiKeys: [{ key: 'reader', perms: ['read'] }],
    rateLimit: { capacity: 10_000, refillPerSecond: 10_000 },
  });
  const baseUrl = await ex.start(0);
  const host = ex.state.engine;
  const t = host.ensureTrader(derivedAddress(maker));
  host.deposit(t, 1_000_000_000_000n);
  const ids = [...ex.state.stores.markets.values()].map((m) => m.id);
  const bySpread = new Map<number, string>();
  [2, 10, 6].forEach((cents, i) => {
    const id = ids[i]!;
    bySpread.set(cents, id.toLowerCase());
    const market = host.marketIndex(id)!;
    const nowMs = ex.state.clock.now();
    for (const o of [
      { side: 'buy' as const, price: 400_000 },
      { side: 'sell' as const, price: 400_000 + cents * 10_000, mode: 'mint' as const },
    ]) {
      const r = host.submit(toSubmitOrder({ market, trader: t, outcome: 1, size: 50_000_000, nowMs, ...o }));
      assert.equal(r.ok, true, JSON.stringify(r));
    }
  });
  bySpread.set(0, ids[3]!.toLowerCase());
  return { ex, baseUrl, bySpread };
}
