/**
 * The route modules a local exchange mounts, in order. Each exports `register(router)`; adding a
 * module is one line here.
 */
import type { Router } from './router.ts';
import * as orders from './routes/orders.ts';
import * as markets from './routes/markets.ts';
import * as orderbook from './routes/orderbook.ts';
import * as activity from './routes/activity.ts';
import * as oracle from './routes/oracle.ts';
import * as simulate from './routes/simulate.ts';
import * as balance from './routes/account/balance.ts';
import * as gasless from './routes/account/gasless.ts';
import * as migration from './routes/account/migration.ts';
import * as portfolio from './routes/account/portfolio.ts';
import * as questions from './routes/account/questions.ts';

export const ROUTE_MODULES: readonly { register(router: Router): void }[] = [
  orders,
  markets,
  orderbook,
  activity,
  oracle,
  simulate,
  balance,
  gasless,
  migration,
  portfolio,
  questions,
];
