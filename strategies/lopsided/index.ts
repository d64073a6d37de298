/** The `lopsided` strategy module (see README.md for its parameters). */
import type { StrategyModule } from '../../src/strategy/types.ts';
import { parseLopsidedConfig, type LopsidedConfig } from './config.ts';
import { quoteLopsided } from './quote.ts';

const lopsided: StrategyModule<LopsidedConfig> = { name: 'lopsided', parseConfig: parseLopsidedConfig, quote: quoteLopsided };
export default lopsided;
