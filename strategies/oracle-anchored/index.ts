/** The `oracle-anchored` strategy module (see README.md for its parameters). */
import type { StrategyModule } from '../../src/strategy/types.ts';
import { parseOracleAnchoredConfig, type OracleAnchoredConfig } from './config.ts';
import { quoteOracleAnchored } from './quote.ts';

const oracleAnchored: StrategyModule<OracleAnchoredConfig> = { name: 'oracle-anchored', parseConfig: parseOracleAnchoredConfig, quote: quoteOracleAnchored };
export default oracleAnchored;
