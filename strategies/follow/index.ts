/** The `follow` strategy module (see README.md for its parameters). */
import type { StrategyModule } from '../../src/strategy/types.ts';
import { parseFollowConfig, type FollowConfig } from './config.ts';
import { quoteFollow } from './quote.ts';

const follow: StrategyModule<FollowConfig> = { name: 'follow', parseConfig: parseFollowConfig, quote: quoteFollow };
export default follow;
