/**
 * A failed start-up exits with one code whichever way the bot runs: `bookmaker run` (its word on the
 * failure, src/cli/startup-failed.ts, or the CLI entry's for errors it throws on) and the chaos
 * harness's bot child (src/chaos/bot-child.ts) both take it from src/runtime/startup-exit.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startupFailed } from '../../src/cli/startup-failed.ts';
import { createLogger } from '../../src/core/logger.ts';
import { VenueError } from '../../src/exchange/client/errors.ts';
import { BadInputError, commandExitCode, ConfigError } from '../../src/model/errors.ts';
import { startupExitCode } from '../../src/runtime/startup-exit.ts';
import { StartupAbortedError, VenueUnreachableError } from '../../src/runtime/startup-retry.ts';
import { WalletSharedError } from '../../src/runtime/wallet-watch.ts';

const venue = (status: number) => new VenueError({ status, venueCode: null, message: 'no', endpoint: 'GET /balance', retryAfterMs: null, body: null });

/** each start-up failure and the code docs/reference/exit-codes.md gives it */
const CASES: [string, unknown, number][] = [
  ['venue unreachable past the deadline', new VenueUnreachableError('markets', 3, 2_000, new Error('ECONNREFUSED'), 'network'), 8],
  ['API key refused (401)', venue(401), 4],
  ['API key refused (403)', venue(403), 4],
  ['another trader on the wallet', new WalletSharedError('another trader', { orders: 1, markets: 1, tags: [] } as never), 7],
  ['a stop during start-up', new StartupAbortedError('SIGTERM'), 0],
  ['a config the bot cannot load', new ConfigError('bad config'), 2],
  ['bad input', new BadInputError('x', 'y', 'z'), 2],
  ['a venue answer no retry passes (400)', venue(400), 1],
  ['anything else', new Error('boom'), 1],
];

/** `bookmaker run`'s path: its word and code, or the entry's code for what it throws on (src/cli/main.ts) */
async function runCode(e: unknown): Promise<{ code: number; said: string }> {
  let said = '';
  const logger = createLogger({ level: 'fatal', destination: { write: (s: string) => void (said += s) } });
  const write = (s: string): void => void (said += s);
  try {
    return { code: await startupFailed(e, { logger, startupDeadlineMs: 2_000, stdout: write, stderr: write }), said };
  } catch (thrown) {
    assert.equal(thrown, e, 'thrown on as it came');
    return { code: commandExitCode(thrown), said };
  }
}

test("bookmaker run and the chaos harness's bot child exit with the same code for every start-up failure", async () => {
  for (const [what, e, expected] of CASES) {
    const run = await runCode(e);
    assert.equal(run.code, expected, `bookmaker run, ${what}`);
    assert.equal(startupExitCode(e), expected, `the bot child, ${what}`);
    // the terminal line names the code it exits with (the errors thrown on are said by the entry)
    if (expected !== 1 && expected !== 2) assert.match(run.said, new RegExp(`[Ee]xit ${expected}\\b`), what);
  }
});
