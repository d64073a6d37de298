/**
 * The Docker image cannot be built on these machines (no engine), so this test runs the Dockerfile's own
 * instructions in a temporary folder, stage by stage, the way `docker build` would: COPY from the build
 * context (this checkout) or from the build stage, RUN through sh in the stage's WORKDIR, ENV into the
 * environment of every later command. Three deviations, all named: the build stage's `npm ci` links this
 * checkout's install instead (same lock file, saves a minute of downloads), its `npm run build` takes the dist/
 * that the package's prepack built with that same command from the same sources (test/package/pack.ts
 * builtDist: one type-checked build of them per machine, not one per test; the package tests check that
 * build), and system steps that need an image (groupadd/useradd, USER, `npm cache clean` of the shared cache)
 * are skipped. The runtime stage's
 * production install runs for real. Then the image's ENTRYPOINT is run the ways an operator would:
 * `--help`, an import of a whole data set and a short backtest, and `run` on the embedded local exchange while the HEALTHCHECK command
 * probes it, with the per-command heap limit checked on the process that does the work.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, builtDist, npmEnv } from '../package/pack.ts';
import { envOf, execForm, healthcheck, heapLimits, readDockerfile, type Stage } from './dockerfile.ts';
import { freePort } from '../support/net.ts';

const stages = readDockerfile(join(REPO, 'Dockerfile'));

/** The scripts of the package.json a stage copied into `dir`. */
function packScripts(dir: string): Record<string, string> {
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts?: Record<string, string> }).scripts ?? {};
}

/** Runs one stage's instructions with `/app` mapped to `dir`; returns the ENV it set. */
function runStage(stage: Stage, dir: string, stageDirs: Record<string, string>, log: string[]): Record<string, string> {
  mkdirSync(dir, { recursive: true });
  const env: Record<string, string> = {};
  for (const s of stage.steps) {
    if (s.op === 'WORKDIR') assert.equal(s.args, '/app', 'stages work in /app');
    else if (s.op === 'ENV') Object.assign(env, envOf({ ...stage, steps: [s] }));
    else if (s.op === 'COPY') {
      const parts = s.args.split(' ');
      const from = parts[0]!.startsWith('--from=') ? parts.shift()!.slice('--from='.length) : null;
      const dest = parts.pop()!;
      for (const src of parts) {
        const source = from === null ? join(REPO, src) : join(stageDirs[from]!, src.replace(/^\/app\/?/, ''));
        const target = dest.endsWith('/') ? join(dir, dest, src.split('/').pop()!) : join(dir, dest);
        cpSync(source, target, { recursive: true });
      }
    } else if (s.op === 'RUN') {
      for (const cmd of s.args.split(' && ')) {
        if (/^(groupadd|useradd) /.test(cmd) || cmd.startsWith('npm cache clean')) {
          log.push(`skipped: ${cmd}`);
        } else if (cmd.startsWith('npm ci') && !cmd.includes('--omit=dev')) {
          symlinkSync(realpathSync(join(REPO, 'node_modules')), join(dir, 'node_modules'), 'dir');
          log.push(`linked instead: ${cmd}`);
        } else if (cmd === 'npm run build' && packScripts(dir).prepack === cmd) {
          builtDist(dir);
          log.push(`the package's build instead (the same command on the same sources, run by npm pack): ${cmd}`);
        } else {
          const run = cmd.startsWith('npm ci') ? `${cmd} --prefer-offline` : cmd;
          execFileSync('sh', ['-c', run], { cwd: dir, env: npmEnv(env), stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', maxBuffer: 64 << 20 });
          log.push(`ran: ${run}`);
        }
      }
    } else if (!['USER', 'EXPOSE', 'HEALTHCHECK', 'ENTRYPOINT', 'CMD'].includes(s.op)) {
      assert.fail(`the test does not know Dockerfile instruction ${s.op}`);
    }
  }
  return env;
}

/** pid → command line of the processes whose parent is `pid` (Linux /proc). */
function childrenOf(pid: number): { pid: number; cmdline: string[] }[] {
  const out: { pid: number; cmdline: string[] }[] = [];
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const ppid = /^PPid:\s+(\d+)$/m.exec(readFileSync(`/proc/${name}/status`, 'utf8'))?.[1];
      if (Number(ppid) === pid) out.push({ pid: Number(name), cmdline: readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').filter(Boolean) });
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

test("the image's commands: compiled build, production install without tsx, --help, an import and a backtest under their heap limits, run with HEALTHCHECK and its heap limit", {
  timeout: 900_000, // a bound for a hang only: at load average 28 the whole test took 330-500 s (32-35 s quiet), at ~45 over 750 s
}, async (t) => {
  assert.deepEqual(
    stages.map((s) => s.name),
    ['build', 'runtime'],
  );
  const work = mkdtempSync(join(tmpdir(), 'bookmaker-image-'));
  try {
    const log: string[] = [];
    const dirs = { build: join(work, 'build'), runtime: join(work, 'app') };
    runStage(stages[0]!, dirs.build, dirs, log);
    assert.ok(existsSync(join(dirs.build, 'dist', 'src', 'cli', 'main.js')), 'the build stage compiled the CLI');
    const env = runStage(stages[1]!, dirs.runtime, dirs, log);
    t.diagnostic(log.join('; '));
    const app = dirs.runtime;

    // production: compiled JavaScript only, no TypeScript loader or compiler, no sources
    assert.ok(!existsSync(join(app, 'src')), 'no TypeScript sources in the image');
    assert.ok(!existsSync(join(app, 'node_modules', 'tsx')), 'no tsx in production');
    assert.ok(!existsSync(join(app, 'node_modules', 'typescript')), 'no TypeScript in production');
    assert.ok(existsSync(join(app, 'node_modules', 'secp256k1')), 'production dependencies installed');
    assert.equal(env.NODE_OPTIONS, undefined, 'no global heap cap for every command');
    const limits = heapLimits(env.BOOKMAKER_HEAP_LIMITS ?? '');
    assert.ok(limits.run! <= 256 && limits.import! >= 1024 && limits.backtest! >= 1024, `per-command limits ${env.BOOKMAKER_HEAP_LIMITS}`);

    const entry = execForm(stages[1]!, 'ENTRYPOINT');
    assert.deepEqual(entry.slice(0, 1), ['node']);
    const imageEnv = { ...npmEnv(env), BOOKMAKER_PRIVATE_KEY: '', BOOKMAKER_API_KEY: '' };
    // each command's bound is for a hang only: at load average ~45 the data set's import took over 120 s
    const cli = (args: string[], timeout = 300_000) =>
      spawnSync(entry[0]!, [...entry.slice(1), ...args], { cwd: app, env: imageEnv, encoding: 'utf8', timeout });

    const help = cli(['--help']);
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /Usage: bookmaker <command>/);
    const cmd = execForm(stages[1]!, 'CMD');
    const runHelp = cli([cmd[0]!, '--help']);
    assert.equal(runHelp.status, 0, runHelp.stderr);
    assert.match(runHelp.stdout, /Usage: bookmaker run -c FILE/);

    // import the Polymarket capture with the image's limits: it needs ~400 MB of heap, and died out of
    // memory under the old global NODE_OPTIONS=--max-old-space-size=128 (checked by hand: FATAL ERROR,
    // heap out of memory, after 3 s); `import` now gets its own limit
    const data = join(work, 'recordings', 'polymarket');
    const imp = cli(['import', 'polymarket', join(REPO, 'data', 'polymarket-tickscope', 'events.jsonl.gz'), '--out', data]);
    assert.equal(imp.status, 0, imp.stderr);
    assert.match(imp.stdout, /imported polymarket: 182,?320 events, 6 markets/);
    // a short backtest with the shipped config (a built-in strategy loaded by name from dist/)
    const bt = cli(['backtest', '-c', 'config/backtest.yaml', '--data', data, '--to', '+1m', '--json', '-']);
    assert.equal(bt.status, 0, bt.stderr);
    const summary = JSON.parse(bt.stdout) as { settings: { strategies: string[] }; orders: { placed: number } };
    assert.deepEqual(summary.settings.strategies, ['avellaneda']);
    assert.ok(summary.orders.placed > 0);

    // `run` on the embedded local exchange; the HEALTHCHECK command answers 0 while it runs, 1 after
    const port = await freePort();
    const runEnv = { ...imageEnv, BOOKMAKER_METRICS_PORT: String(port), BOOKMAKER_METRICS_HOST: '127.0.0.1' };
    const hc = healthcheck(stages[1]!);
    assert.ok(hc.flags.interval && hc.flags.timeout && hc.flags['start-period'], 'interval, timeout and start period set');
    const probe = () => spawnSync(hc.cmd[0]!, hc.cmd.slice(1), { cwd: app, env: runEnv, encoding: 'utf8', timeout: 30_000 });
    const bot = spawn(entry[0]!, [...entry.slice(1), 'run', '-c', 'config/local.yaml', '--duration', '120'], {
      cwd: app,
      env: runEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    bot.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const exited = new Promise<number | null>((resolve) => bot.once('exit', (code) => resolve(code)));
    try {
      // wait for the endpoint (no timing assertion: the loop ends on success or when the bot exits)
      let healthy = probe();
      while (healthy.status !== 0 && bot.exitCode === null) {
        await new Promise((r) => setTimeout(r, 250));
        healthy = probe();
      }
      assert.equal(healthy.status, 0, `healthcheck: ${healthy.stderr} / bot: ${stderr}`);
      // the entry point re-executed itself with the `run` heap limit
      const kids = childrenOf(bot.pid!);
      assert.equal(kids.length, 1, JSON.stringify(kids));
      assert.ok(kids[0]!.cmdline.includes(`--max-old-space-size=${limits.run}`), kids[0]!.cmdline.join(' '));
      bot.kill('SIGTERM'); // forwarded to the bot: cancel all, exit 0
      assert.equal(await exited, 0, stderr);
    } finally {
      bot.kill('SIGKILL');
    }
    const down = probe();
    assert.equal(down.status, 1, 'unhealthy once the bot is gone');
    assert.match(down.stderr, /healthcheck: http:\/\/127\.0\.0\.1:\d+\/healthz: ECONNREFUSED/);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
