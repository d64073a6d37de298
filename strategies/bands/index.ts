/** The `bands` strategy module (see README.md for its parameters). */
import type { StrategyModule } from '../../src/strategy/types.ts';
import { parseBandsConfig, type BandsConfig } from './config.ts';
import { quoteBands } from './quote.ts';

const bands: StrategyModule<BandsConfig> = { name: 'bands', parseConfig: parseBandsConfig, quote: quoteBands };
export default bands;
