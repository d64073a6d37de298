/** The `glft` strategy module (see README.md for its parameters). */
import type { StrategyModule } from '../../src/strategy/types.ts';
import { parseGlftConfig, type GlftConfig } from './config.ts';
import { quoteGlft } from './quote.ts';

const glft: StrategyModule<GlftConfig> = { name: 'glft', parseConfig: parseGlftConfig, quote: quoteGlft };
export default glft;
