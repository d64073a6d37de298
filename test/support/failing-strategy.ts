/**
 * A bot config whose strategies can be made to fail: every market's strategy is wrapped so that
 * its quote throws `message` while `failing.on` is true (a strategy error the health model sees),
 * with the health model's not-quoting grace shortened so tests and alerts see it soon.
 *
 *   const { cfg, failing } = withFailingStrategy(await config(h), 1_000);
 *   ...; failing.on = true;
 */
import type { BotConfig } from '../../src/config/types.ts';
import type { StrategyModule } from '../../src/strategy/types.ts';

export function withFailingStrategy(
  base: BotConfig,
  notQuotingGraceMs: number,
  o: { name?: string; message?: string } = {},
): { cfg: BotConfig; failing: { on: boolean } } {
  const failing = { on: false };
  const wrap = (m: StrategyModule<unknown>): StrategyModule<unknown> => ({
    name: o.name ?? 'fails-on-demand',
    parseConfig: (raw, path) => m.parseConfig(raw, path),
    quote: (view, c) => {
      if (failing.on) throw new Error(o.message ?? 'strategy broke');
      return m.quote(view, c);
    },
  });
  const cfg: BotConfig = {
    ...base,
    health: { ...base.health, notQuotingGraceMs },
    markets: base.markets.map((m) => ({ ...m, strategy: { ...m.strategy, module: wrap(m.strategy.module) } })),
  };
  return { cfg, failing };
}
