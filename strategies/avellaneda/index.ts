/** The `avellaneda` strategy module (see README.md for its parameters). */
import type { StrategyModule } from '../../src/strategy/types.ts';
import { parseAvellanedaConfig, type AvellanedaConfig } from './config.ts';
import { quoteAvellaneda } from './quote.ts';

const avellaneda: StrategyModule<AvellanedaConfig> = { name: 'avellaneda', parseConfig: parseAvellanedaConfig, quote: quoteAvellaneda };
export default avellaneda;
