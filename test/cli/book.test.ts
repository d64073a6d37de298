import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { parseArgs } from '../../src/cli/args.ts';
import bookCommand, { runBook, renderLadder, type BookIO } from '../../src/cli/commands/book.ts';
import { L2Book } from '../../src/core/l2-book.ts';
import { SseFixtureServer, type FixtureBook } from '../exchange/stream/sse-fixture-server.ts';
import { until } from '../exchange/stream/event-collector.ts';
import { BadInputError } from '../../src/model/errors.ts';
import { cliArgs } from '../support/cli.ts';

const M = '0x' + 'ef'.repeat(32);
const TS = '2026-11-21T10:00:00.000Z';
const BOOK: FixtureBook = {
  marketId: M,
  bids: [
    { price: 45, size: 10 },
    { price: 44.5, size: 2.5 },
  ],
  asks: [{ price: 47, size: 3 }],
  timestamp: TS,
};

function sink(): { text: string; write(s: string): boolean } {
  return {
    text: '',
    write(s: string) {
      this.text += s;
      return true;
    },
  };
}

function args(argv: string[]) {
  return parseArgs(argv, bookCommand.options);
}

/** Runs `fn` against a fixture server of BOOK (its stream fed by `onStream` when given), then closes the server. */
async function onBookServer(onStream: SseFixtureServer['onStream'] | undefined, fn: (base: string, server: SseFixtureServer) => Promise<void>): Promise<void> {
  const server = new SseFixtureServer(BOOK);
  const base = await server.start();
  if (onStream) server.onStream = onStream;
  try {
    await fn(base, server);
  } finally {
    await server.close();
  }
}

/** Runs `book ARGV` (a --watch) until its output shows `text`, then aborts it; returns its exit code. */
async function watchUntil(
  argv: string[],
  io: { out: ReturnType<typeof sink>; err: ReturnType<typeof sink>; tty: boolean },
  text: string,
  label: string,
): Promise<number> {
  const ac = new AbortController();
  const done = runBook(args(argv), { ...io, signal: ac.signal });
  await until(() => io.out.text.includes(text), label);
  ac.abort();
  return done;
}

test('prints the ladder: asks above, bids below, cents and shares', () =>
  onBookServer(undefined, async (base, server) => {
    const out = sink();
    const err = sink();
    const code = await runBook(args([M, '--base-url', base, '--outcome', 'no', '--depth', '5']), { out, err, tty: false });
    assert.equal(code, 0);
    const lines = out.text.trimEnd().split('\n');
    assert.match(lines[0]!, new RegExp(`market ${M}  outcome NO`));
    const ask = lines.findIndex((l) => /47\.00\s+3\s*$/.test(l));
    const bid = lines.findIndex((l) => /^\s+10\s+45\.00\s*$/.test(l));
    const bid2 = lines.findIndex((l) => /^\s+2\.5\s+44\.50\s*$/.test(l));
    assert.ok(ask > 0 && bid > ask && bid2 > bid, out.text);
    assert.match(out.text, /spread 2¢\s+mid 46\.00¢/);
    assert.equal(server.requests[0]!.url, `/v2/markets/${M}/orderbook?depth=5&outcomeIndex=0`);
  }));

test('--json prints the book in integer units', () =>
  onBookServer(undefined, async (base) => {
    const out = sink();
    await runBook(args([M, '--base-url', base, '--json']), { out, err: sink(), tty: false });
    const j = JSON.parse(out.text) as { bids: unknown[]; bestBid: number; bestAsk: number; outcomeIndex: number };
    assert.deepEqual(j.bids[0], { price: 450_000, size: 10_000_000 });
    assert.equal(j.bestAsk, 470_000);
    assert.equal(j.outcomeIndex, 1);
  }));

test('--watch prints one line per update and stops cleanly on abort', () =>
  onBookServer(
    (c) => {
      c.send('snapshot', { ...BOOK, seq: 1 });
      c.send('delta', { marketId: M, seq: 2, timestamp: TS, changes: [{ side: 'bid', price: 46, size: 1 }] });
    },
    async (base, server) => {
      const out = sink();
      const err = sink();
      assert.equal(await watchUntil([M, '--base-url', base, '--watch'], { out, err, tty: false }, 'seq 2', 'the delta line'), 0);
      const lines = out.text.trimEnd().split('\n');
      assert.match(lines[0]!, /^seq 1 snapshot \(stream\) 2 bids 1 asks  best 45 \/ 47$/);
      assert.match(lines[1]!, /^seq 2 delta bid 46=1  best 46 \/ 47$/);
      assert.match(err.text, /status live/);
      const conn = await server.waitForConn(1);
      await conn.whenClosed;
    },
  ));

test('--watch on a terminal redraws the ladder in place; --json --watch prints one object per event', () =>
  onBookServer(
    (c) => {
      c.send('snapshot', { ...BOOK, seq: 1 });
      c.send('trade', { marketId: M, seq: 2, timestamp: TS, price: 47, size: 1, takerSide: 'buy' });
    },
    async (base) => {
      const out = sink();
      const code = await watchUntil(
        [M, '--base-url', base, '--watch'],
        { out, err: sink(), tty: true },
        'last trade 47¢ × 1 (taker buy)',
        'a redraw after the trade',
      );
      assert.equal(code, 0);
      assert.ok(out.text.startsWith('\x1b[H\x1b[2J'), 'clears and homes the cursor before each frame');
      assert.match(out.text, /stream live {2}seq 2/);

      const jout = sink();
      await watchUntil([M, '--base-url', base, '--watch', '--json'], { out: jout, err: sink(), tty: true }, '"type":"trade"', 'the trade object');
      const objs = jout.text
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; bestAsk?: number });
      assert.deepEqual(
        objs.map((o) => o.type),
        ['status', 'status', 'snapshot', 'trade'],
      );
      assert.equal(objs[2]!.bestAsk, 470_000);
    },
  ));

test('bad flags and ids are rejected with the field named', async () => {
  const io: BookIO = { out: sink(), err: sink(), tty: false };
  await assert.rejects(runBook(args(['not a market!']), io), (e: unknown) => e instanceof BadInputError && e.field === 'marketId');
  await assert.rejects(runBook(args([]), io), (e: unknown) => e instanceof BadInputError && e.field === 'marketId');
  await assert.rejects(runBook(args([M, '--depth', '0']), io), (e: unknown) => e instanceof BadInputError && e.field === '--depth');
  await assert.rejects(runBook(args([M, '--base-url', 'nope']), io), (e: unknown) => e instanceof BadInputError && e.field === '--base-url');
  assert.throws(() => args([M, '--outcome', 'maybe']), /--outcome/);
});

test('--watch on an unknown market fails fast with the venue error', async () => {
  const http = await import('node:http');
  const server = http.createServer((_req, res) => {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ message: 'market not found', code: 'NOT_FOUND' }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  try {
    await assert.rejects(
      runBook(args([M, '--base-url', `http://127.0.0.1:${port}/v2`, '--watch']), { out: sink(), err: sink(), tty: false }),
      /market not found|404/,
    );
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
});

test('renderLadder shows an empty book plainly', () => {
  const text = renderLadder(new L2Book(), 'hdr', 5);
  assert.match(text, /one side empty/);
  assert.match(text, /\(empty book\)/);
});

test('the real CLI exits 0 on SIGINT during --watch', { timeout: 30_000 }, async () => {
  const server = new SseFixtureServer(BOOK);
  const base = await server.start();
  server.onStream = (c) => c.send('snapshot', { ...BOOK, seq: 1 });
  try {
    const child = spawn(process.execPath, cliArgs(['book', M, '--base-url', base, '--watch']), { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await until(() => out.includes('seq 1 snapshot'), 'the first update from the child', 25_000);
    child.kill('SIGINT');
    assert.equal(await exit, 0);
  } finally {
    await server.close();
  }
});
