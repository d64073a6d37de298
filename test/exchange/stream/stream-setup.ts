/** A book stream (YES outcome) on the fixture server serving `book`, with its event collector: the setup of the book-stream tests. */
import { createBookStream, type BookStreamOptions } from '../../../src/exchange/stream/book-stream.ts';
import assert from 'node:assert/strict';
import { SseFixtureServer, type FixtureBook, type SseConn } from './sse-fixture-server.ts';
import { EventCollector } from './event-collector.ts';

/** Fast reconnects and a long idle timeout unless `opts` says otherwise. */
export async function startFixtureStream(book: FixtureBook, opts: Partial<BookStreamOptions> & Pick<BookStreamOptions, 'fetchSnapshot'>) {
  const server = new SseFixtureServer(book);
  const baseUrl = await server.start();
  const stream = createBookStream({
    baseUrl,
    marketId: book.marketId,
    outcomeIndex: 1,
    idleTimeoutMs: 60_000,
    backoff: { initialMs: 5, maxMs: 20, jitter: 0 },
    ...opts,
  });
  const col = new EventCollector(stream.events$);
  return {
    server,
    stream,
    col,
    baseUrl,
    /** Ends `conn` (cleanly or by a reset) and returns the stream's next connection, which must resume after `lastEventId`. */
    async reconnect(conn: SseConn, how: 'end' | 'destroy', lastEventId: string): Promise<SseConn> {
      const n = server.conns.indexOf(conn) + 2;
      conn[how]();
      const next = await server.waitForConn(n);
      assert.equal(next.lastEventId, lastEventId);
      return next;
    },
    async done() {
      col.stop();
      await server.close();
    },
  };
}
