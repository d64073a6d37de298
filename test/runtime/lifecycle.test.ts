import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Lifecycle } from '../../src/runtime/lifecycle.ts';
import { createLogger } from '../../src/core/logger.ts';

test('teardown undoes the phases in reverse, each step once, and names the phase the start-up reached', async () => {
  const life = new Lifecycle();
  const done: string[] = [];
  life.add(() => void done.push('admin'));
  life.enter('venue');
  life.add(async () => void done.push('venue'));
  life.enter('ledger');
  life.add(() => void done.push('ledger'));
  assert.equal(life.phase, 'ledger');
  await life.teardown();
  assert.deepEqual(done, ['ledger', 'venue', 'admin']);
  await life.teardown();
  assert.equal(done.length, 3, 'a second teardown runs nothing again');
});

test('a failing step does not stop the others: logged with its phase, or thrown once all ran', async () => {
  const life = new Lifecycle();
  const done: string[] = [];
  life.add(() => void done.push('admin'));
  life.enter('feeds');
  life.add(() => {
    throw new Error('unsubscribe failed');
  });
  life.enter('endpoints');
  life.add(() => void done.push('endpoints'));
  await assert.rejects(life.teardown(), /unsubscribe failed/);
  assert.deepEqual(done, ['endpoints', 'admin']);

  const lines: string[] = [];
  const log = createLogger({ level: 'warn', destination: { write: (l: string) => void lines.push(l) } });
  const again = new Lifecycle();
  again.enter('feeds');
  again.add(() => {
    throw new Error('unsubscribe failed');
  });
  again.add(() => void done.push('after'));
  await again.teardown(log);
  assert.equal(done.at(-1), 'after');
  assert.match(lines.join(''), /"phase":"feeds".*cleanup step failed|cleanup step failed.*"phase":"feeds"/);
});
