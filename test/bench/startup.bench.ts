/**
 * `npm run bench -- startup [--rounds N]`: start-up time of the built JavaScript (dist/, `npm run build`)
 * against the TypeScript sources through tsx, in the same run, alternating:
 *  - `bookmaker run --help`: process start to exit (wall ms, median of N rounds per side);
 *  - `npm start` (the demo on the embedded local exchange) to its first quote: process start to the first
 *    order the local exchange accepted (bookmaker_orders_accepted_total > 0 on /metrics, polled every 20 ms);
 *  - `bookmaker sim --help` (loads the command and the local exchange's modules): the process's own CPU time
 *    (user + sys, all threads; steadier than wall time on a busy machine) and how many modules it resolved,
 *    of which how many are viem's (none expected: docs/performance.md#start-up).
 * Both sides run from the same temporary copy of the checkout; the source side sets BOOKMAKER_SOURCE=1.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyCheckout, npm, npmEnv } from '../package/pack.ts';
import { percentile, report } from './lib.ts';
import { freePort } from '../support/net.ts';

const ri = process.argv.indexOf('--rounds');
const ROUNDS = ri > 0 ? Number(process.argv[ri + 1]) : 5;

const work = mkdtempSync(join(tmpdir(), 'bookmaker-startup-'));
const dir = copyCheckout(join(work, 'checkout'));
const tb = performance.now();
npm(['run', 'build'], dir);
const buildMs = performance.now() - tb;

const envFor = (side: 'built' | 'tsx'): NodeJS.ProcessEnv => ({
  ...npmEnv(),
  BOOKMAKER_PRIVATE_KEY: '',
  ...(side === 'tsx' ? { BOOKMAKER_SOURCE: '1' } : { BOOKMAKER_SOURCE: '' }),
});

function helpMs(side: 'built' | 'tsx'): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['bin/bookmaker.js', 'run', '--help'], { cwd: dir, env: envFor(side), encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (r.status !== 0 || !r.stdout.includes('Usage: bookmaker run')) throw new Error(`run --help (${side}) failed: ${r.stderr}`);
  return ms;
}

// A preload that records every resolved module URL (a resolve hook, so modules tsx compiles count too) and,
// at exit, the process's CPU time, in files named by BOOKMAKER_BENCH_PROBE.
const probe = join(work, 'probe.mjs');
writeFileSync(
  probe,
  `import { register } from 'node:module';
import { appendFileSync } from 'node:fs';
const hooks = \`import { appendFileSync } from 'node:fs';
export async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(process.env.BOOKMAKER_BENCH_PROBE + '.urls', r.url + '\\\\n'); return r; }\`;
register('data:text/javascript,' + encodeURIComponent(hooks));
process.on('exit', () => { const u = process.cpuUsage(); appendFileSync(process.env.BOOKMAKER_BENCH_PROBE + '.cpu', String(u.user + u.system)); });
`,
);

/** `bookmaker sim --help`: CPU ms of the process, modules resolved, and how many of them are viem's. */
function simHelpProbe(side: 'built' | 'tsx', round: number): { cpuMs: number; modules: number; viem: number } {
  const out = join(work, `probe-${side}-${round}`);
  const r = spawnSync(process.execPath, ['--import', probe, 'bin/bookmaker.js', 'sim', '--help'], {
    cwd: dir,
    env: { ...envFor(side), BOOKMAKER_BENCH_PROBE: out },
    encoding: 'utf8',
  });
  if (r.status !== 0 || !r.stdout.includes('Usage: bookmaker sim')) throw new Error(`sim --help (${side}) failed: ${r.stderr}`);
  const urls = new Set(readFileSync(`${out}.urls`, 'utf8').split('\n').filter(Boolean));
  return {
    cpuMs: Number(readFileSync(`${out}.cpu`, 'utf8')) / 1000,
    modules: urls.size,
    viem: [...urls].filter((u) => u.includes('/node_modules/viem/')).length,
  };
}

async function firstQuoteMs(side: 'built' | 'tsx'): Promise<number> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn('npm', ['start', '--', '--metrics-port', String(port), '--duration', '120', '--summary-seconds', '0', '--log-level', 'error'], {
    cwd: dir,
    env: envFor(side),
    stdio: 'ignore',
    detached: true, // its own process group: npm, sh and node are stopped together
  });
  let exited = false;
  child.once('exit', () => (exited = true));
  try {
    for (;;) {
      if (exited) throw new Error(`npm start (${side}) exited before quoting`);
      try {
        const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        const accepted = [...text.matchAll(/^bookmaker_orders_accepted_total\{[^}]*\} (\d+)/gm)].reduce((a, m) => a + Number(m[1]), 0);
        if (accepted > 0) return performance.now() - t0;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
    if (!exited) await new Promise((r) => child.once('exit', r));
  }
}

const help = { built: [] as number[], tsx: [] as number[] };
const start = { built: [] as number[], tsx: [] as number[] };
const simHelp = { built: [] as ReturnType<typeof simHelpProbe>[], tsx: [] as ReturnType<typeof simHelpProbe>[] };
try {
  helpMs('built'); // warm the file cache for both sides
  helpMs('tsx');
  for (let i = 0; i < ROUNDS; i++) {
    for (const side of i % 2 === 0 ? (['built', 'tsx'] as const) : (['tsx', 'built'] as const)) help[side].push(helpMs(side));
  }
  for (let i = 0; i < ROUNDS; i++) {
    for (const side of i % 2 === 0 ? (['built', 'tsx'] as const) : (['tsx', 'built'] as const)) simHelp[side].push(simHelpProbe(side, i));
  }
  for (let i = 0; i < ROUNDS; i++) {
    for (const side of i % 2 === 0 ? (['built', 'tsx'] as const) : (['tsx', 'built'] as const)) start[side].push(await firstQuoteMs(side));
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const med = (v: number[]): number =>
  percentile(
    [...v].sort((a, b) => a - b),
    0.5,
  );
const r1 = (x: number): number => Math.round(x);
const helpBuilt = med(help.built);
const helpTsx = med(help.tsx);
const startBuilt = med(start.built);
const startTsx = med(start.tsx);
const simCpu = (side: 'built' | 'tsx'): number => med(simHelp[side].map((p) => p.cpuMs));
const simLine = (side: 'built' | 'tsx'): string =>
  `${r1(simCpu(side))} ms CPU median (${simHelp[side].map((p) => r1(p.cpuMs)).join(', ')}); ${simHelp[side][0]!.modules} modules, ${simHelp[side][0]!.viem} of viem`;
report(
  [
    ['rounds per side', ROUNDS],
    ['build (tsc, once)', `${r1(buildMs)} ms`],
    ['run --help, built JS', `${r1(helpBuilt)} ms median (${help.built.map(r1).join(', ')})`],
    ['run --help, tsx', `${r1(helpTsx)} ms median (${help.tsx.map(r1).join(', ')})`],
    ['npm start → first quote, built JS', `${r1(startBuilt)} ms median (${start.built.map(r1).join(', ')})`],
    ['npm start → first quote, tsx', `${r1(startTsx)} ms median (${start.tsx.map(r1).join(', ')})`],
    ['sim --help, built JS', simLine('built')],
    ['sim --help, tsx', simLine('tsx')],
  ],
  {
    name: 'startup',
    unit: 'ms',
    value: r1(helpBuilt),
    baseline: 'tsx (TypeScript sources)',
    baselineValue: r1(helpTsx),
    ratio: Number((helpTsx / helpBuilt).toFixed(2)),
    npmStartFirstQuoteMs: r1(startBuilt),
    npmStartFirstQuoteTsxMs: r1(startTsx),
    npmStartRatio: Number((startTsx / startBuilt).toFixed(2)),
    simHelpCpuMs: r1(simCpu('built')),
    simHelpTsxCpuMs: r1(simCpu('tsx')),
    simHelpModules: simHelp.built[0]!.modules,
    simHelpViemModules: Math.max(simHelp.built[0]!.viem, simHelp.tsx[0]!.viem),
  },
);
