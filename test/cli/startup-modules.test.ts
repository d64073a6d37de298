/**
 * Start-up cost: the CLI commands and the embedded local exchange must not load viem (about 350
 * modules, most of a second of CPU under tsx) when nothing on their path needs it
 * (docs/performance.md#start-up). A child process imports them with a resolve hook that refuses viem.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const HOOKS = `
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (/\\/node_modules\\/viem\\//.test(r.url)) throw new Error('viem loaded: ' + specifier + ' from ' + context.parentURL);
  return r;
}`;
const REGISTER = `import { register } from 'node:module'; register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOKS)}));`;

function importAll(files: string[]): { status: number | null; out: string } {
  const body = files.map((f) => `await import(${JSON.stringify(pathToFileURL(join(ROOT, f)).href)});`).join('\n');
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`, '--input-type=module', '-e', `${body}\nconsole.log('imported');`],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, BOOKMAKER_PRIVATE_KEY: '' } },
  );
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

test('the hook does refuse viem (so the check below can fail)', () => {
  const r = importAll(['test/exchange/signing/fixtures.ts', 'node_modules/viem/_esm/index.js']);
  assert.notEqual(r.status, 0);
  assert.match(r.out, /viem loaded/);
});

test('every CLI command and the embedded local exchange load without viem', () => {
  const commands = readdirSync(join(ROOT, 'src/cli/commands'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `src/cli/commands/${f}`);
  const sim = ['src/sim/local-exchange.ts', 'src/sim/counterparties.ts', 'src/sim/market-churn.ts', 'src/sim/faults.ts', 'src/runtime/venue-setup.ts'];
  const r = importAll(['src/cli/main.ts', ...commands, ...sim]);
  assert.equal(r.status, 0, r.out);
  assert.match(r.out, /imported/);
});
