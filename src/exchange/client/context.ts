/** What every endpoint function gets: the transport plus the unit settings and the injected sleep/clock. */
import type { BookPriceUnits, BookSizeUnits } from '../../model/book.ts';
import type { Transport } from './transport.ts';

export interface ClientContext {
  t: Transport;
  priceUnits: BookPriceUnits;
  sizeUnits: BookSizeUnits;
  sleep: (ms: number) => Promise<void>;
  now: () => number;
}
