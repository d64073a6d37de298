/** The `binary` strategy module (see README.md for its parameters). */
import type { StrategyModule } from '../../src/strategy/types.ts';
import { parseBinaryConfig, type BinaryConfig } from './config.ts';
import { quoteBinary } from './quote.ts';

const binary: StrategyModule<BinaryConfig> = { name: 'binary', parseConfig: parseBinaryConfig, quote: quoteBinary };
export default binary;
