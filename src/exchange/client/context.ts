/** What every endpoint function gets: the transport plus the unit settings and the injected sleep/clock. */
import type { BookPriceUnits, BookSizeUnits } from '../../model/book.ts';
import { asObject, at, type At, type Rec } from './fields.ts';
import type { HttpResponse, RequestSpec, Transport } from './transport.ts';

export interface ClientContext {
  t: Transport;
  priceUnits: BookPriceUnits;
  sizeUnits: BookSizeUnits;
  sleep: (ms: number) => Promise<void>;
  now: () => number;
}

/** A request whose answer is a JSON object: the object, `a` (the endpoint) for its fields' errors, and the answer. */
export async function requestObject(ctx: ClientContext, spec: RequestSpec): Promise<{ o: Rec; a: At; res: HttpResponse }> {
  const res = await ctx.t.request(spec);
  const a = at(spec.endpoint);
  return { o: asObject(res.json, a), a, res };
}
