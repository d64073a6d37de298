/**
 * `bookmaker sim`'s ready output (src/cli/commands/sim.ts): the `listening <base-url>` line and, without --api-key,
 * the demo keys after it, written in one write. docs/getting-started.md's block waits for the listening line in the
 * sim's output file, then reads the maker key's private key from it: with the lines written one by one, a reader on
 * a loaded machine could find the listening line alone and read an empty key, and then `bookmaker run` and
 * `bookmaker sign` fail (two getting-started commands of test/readme-commands.test.ts failed so once, at load 14).
 * In process: the sim's command run, stdout's writes recorded, stopped as on SIGTERM.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseArgs } from '../../src/cli/args.ts';
import command from '../../src/cli/commands/sim.ts';

test('the listening line and every demo key line are one write', async () => {
  const writes: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    if (/^(listening|demo-key|demo-legacy-wallet) /m.test(text)) writes.push(text);
    else return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    return true;
  }) as typeof process.stdout.write;
  let exit: Promise<number | void> | undefined;
  try {
    exit = Promise.resolve(command.run(parseArgs(['--port', '0', '--seed', '9', '--no-agents', '--markets', '1'], command.options)));
    const deadline = Date.now() + 120_000;
    while (!writes.some((w) => w.startsWith('listening ')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  } finally {
    process.emit('SIGTERM');
    process.stdout.write = write;
  }
  assert.equal(await exit, 0);
  assert.equal(writes.length, 1, `one write: ${JSON.stringify(writes)}`);
  const lines = writes[0]!.trimEnd().split('\n');
  assert.match(lines[0]!, /^listening http:\/\/127\.0\.0\.1:\d+\/v2$/);
  for (const k of ['maker', 'admin', 'legacy'])
    assert.ok(
      lines.some((l) => new RegExp(`^demo-key sim-demo-9-${k} wallet 0x[0-9a-fA-F]{40} perms \\S+ private-key 0x[0-9a-fA-F]{64}$`).test(l)),
      `the ${k} key, in the same write: ${lines.join(' | ')}`,
    );
});
