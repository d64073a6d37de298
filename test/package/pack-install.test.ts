/**
 * bookmaker as a package: pack this checkout, install the tarball into a fresh project outside
 * the repository, write the strategy of docs/strategies.md ("Writing your own") there (it imports only
 * from 'bookmaker'), and run that section's commands with the installed `bookmaker`: import the Polymarket
 * data set of data/ and backtest the user's strategy on it. Also: the tarball ships only what runs, the
 * declarations type-check the user's strategy, built-in strategies load by name from the build, and the
 * "backtest from code" of docs/package.md runs against the installed package.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { REPO, localPrebuilds, npm, npmEnv, packBookmaker, readmeBlock } from './pack.ts';

const DATA = join(REPO, 'data', 'polymarket-tickscope', 'events.jsonl.gz');
const TSX_VERSION = (JSON.parse(readFileSync(join(REPO, 'node_modules', 'tsx', 'package.json'), 'utf8')) as { version: string }).version;

function files(dir: string, out: string[] = [], base = dir): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) files(p, out, base);
    else out.push(relative(base, p));
  }
  return out;
}

test('packed bookmaker installs into a project outside the repository and backtests a strategy that imports only from "bookmaker"', {
  timeout: 600_000, // a bound for a hang only: at load average 28 the whole test took 330-500 s (32-35 s quiet)
}, () => {
  assert.ok(existsSync(DATA), `the data set is in the repository: ${relative(REPO, DATA)}`);
  const work = mkdtempSync(join(tmpdir(), 'bookmaker-pack-'));
  assert.ok(relative(REPO, work).startsWith('..'), 'the project lives outside the repository');
  try {
    const tgz = packBookmaker(work);

    // ── a user's project: the flow of docs/strategies.md (npm init, install the tarball and tsx)
    const app = join(work, 'my-bot');
    execFileSync('mkdir', ['-p', app]);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'my-bot', version: '1.0.0', private: true, type: 'module' }));
    // better-sqlite3's install takes this checkout's build as its prebuild (as it would take a download;
    // offline it compiles SQLite from source instead, most of this test's time)
    npm(['install', tgz, `tsx@${TSX_VERSION}`, '--prefer-offline', '--no-audit', '--no-fund'], app, { env: npmEnv(localPrebuilds(join(work, 'prebuilds'))) });
    const pkg = join(app, 'node_modules', 'bookmaker');

    // ── the tarball holds only what runs
    const shipped = files(pkg);
    assert.ok(shipped.includes('dist/src/index.js') && shipped.includes('dist/src/index.d.ts'), 'entry point and its declarations');
    assert.ok(shipped.includes('dist/strategies/bands/index.js'), 'built-in strategies, compiled');
    assert.ok(shipped.includes('bin/bookmaker.js'));
    const stray = shipped.filter((f) => /^(test|\.ci|src|scripts|data)\//.test(f) || (/\.ts$/.test(f) && !f.endsWith('.d.ts')) || /\.(png|tgz)$/.test(f));
    assert.deepEqual(stray, [], 'no tests, CI, sources, data or images in the package');
    const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as Record<string, unknown>;
    assert.equal(manifest.private, undefined);
    assert.ok(!('tsx' in (manifest.dependencies as Record<string, string>)), 'tsx is not a production dependency');

    // ── the docs' strategy, verbatim, in the user's project
    const strategy = readmeBlock('## Writing your own', 'ts');
    assert.match(strategy, /from 'bookmaker';/);
    writeFileSync(join(app, 'fixed-spread.ts'), strategy);

    // ── the declarations type-check it (strict, NodeNext, as a user's tsconfig would)
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, skipLibCheck: true, types: [] },
        files: ['fixed-spread.ts'],
      }),
    );
    execFileSync(process.execPath, [join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: app, encoding: 'utf8' });

    // ── the docs' commands, run from the project (../bookmaker is this checkout)
    const commands = readmeBlock('## Writing your own', 'sh', 1).replaceAll('../bookmaker/', `${REPO}/`);
    assert.match(commands, /npx bookmaker backtest -c backtest\.yaml/);
    execFileSync('bash', ['-euo', 'pipefail', '-c', commands], { cwd: app, env: npmEnv(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const summary = JSON.parse(readFileSync(join(app, 'out', 'summary.json'), 'utf8')) as {
      settings: { strategies: string[] };
      recording: { markets: number; rows: number };
      orders: { placed: number };
      fills: number;
    };
    assert.deepEqual(summary.settings.strategies, ['./fixed-spread.ts'], "the user's strategy ran");
    assert.equal(summary.recording.markets, 6);
    assert.ok(summary.recording.rows > 10_000, `rows ${summary.recording.rows}`);
    assert.ok(summary.orders.placed > 0, 'it quoted');
    assert.ok(summary.fills > 0, 'and was filled');

    // ── docs/package.md's "backtest from code" and a built-in strategy by name, against the installed package
    writeFileSync(join(app, 'from-code.mjs'), readmeBlock('# Using bookmaker as a package', 'ts'));
    const fromCode = execFileSync(process.execPath, ['from-code.mjs'], { cwd: app, encoding: 'utf8' });
    const m = /^(\d+) fills, PnL -?[0-9.]+ USDC\n$/.exec(fromCode);
    assert.ok(m && Number(m[1]) > 0, `the whole recording through the API: ${fromCode}`);
    writeFileSync(
      join(app, 'builtin.mjs'),
      "import { loadStrategy, BUILTIN_STRATEGIES } from 'bookmaker';\nfor (const n of BUILTIN_STRATEGIES) console.log((await loadStrategy(n)).name);\n",
    );
    assert.deepEqual(execFileSync(process.execPath, ['builtin.mjs'], { cwd: app, encoding: 'utf8' }).trim().split('\n'), [
      'bands',
      'avellaneda',
      'oracle-anchored',
      'glft',
      'binary',
      'follow',
      'lopsided',
    ]);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
