/**
 * Every shell command of README.md and of the pages of docs/ works as written. The fenced `sh` blocks are
 * read from the README, then from the docs pages in the order docs/README.md links them (then any other
 * page of docs/, by name), and run in that order, one bash session per block (sharing a scratch folder,
 * exported variables and background processes, as for a reader following the pages in one terminal):
 *
 * - `bookmaker` is `node bin/bookmaker.js` of this checkout;
 * - the ports the README uses (8787, 8788) become free ports of this machine, so parallel runs never meet;
 * - `bookmaker sim … &` runs in the background until the end; a `bookmaker sim` in the foreground is
 *   started in the background, must print `listening <url>`, and must exit 0 on SIGTERM;
 * - `bookmaker run` and `npm start` run for a few seconds (`--duration`), with the metrics endpoint off;
 * - commands that need the real venue (no `--base-url`, a mainnet/testnet config) are not sent: their
 *   flags are parsed by the command's own parser and their config is loaded and validated;
 * - `docker …`, `kubectl …`, `npm ci` and `npm test` are not run here (said why in the test's
 *   diagnostics): CI runs `npm ci` and `npm test` itself, and Docker and Kubernetes are not available on
 *   these machines (other tests check the image's commands and the manifest); the blocks of "Writing your
 *   own" are run by the package-install test, in a project outside the repository.
 * A command that fails fails its block's test, naming the command.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, type CommandSpec } from '../src/cli/args.ts';
import { loadConfig } from '../src/config/load-config.ts';
import { checkMarketsArgs } from '../src/cli/commands/markets.ts';
import { readBookArgs } from '../src/cli/commands/book.ts';
import { freePort } from './support/net.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));

/**
 * The pages whose commands run, in reading order: README.md, the pages of docs/ in the order docs/README.md
 * links them, then any other page of docs/ (a page added later is covered without touching this test).
 */
export function pagesInOrder(repo = REPO): string[] {
  const docs = join(repo, 'docs');
  const all = readdirSync(docs)
    .filter((n) => n.endsWith('.md') && n !== 'README.md')
    .sort()
    .map((n) => `docs/${n}`);
  const index = readFileSync(join(docs, 'README.md'), 'utf8');
  const linked = [...index.matchAll(/\]\(([^)#\s]+\.md)(?:#[^)]*)?\)/g)].map((m) => relative(repo, normalize(join(docs, m[1]!))));
  const ordered = [...new Set(linked)].filter((p) => all.includes(p));
  return ['README.md', ...ordered, ...all.filter((p) => !ordered.includes(p))];
}
/** seconds a `run` (or `npm start`) of the README runs here */
const RUN_SECONDS = 6;
const BLOCK_TIMEOUT_MS = 240_000;

export interface Block {
  /** the page, relative to the repository */
  file?: string;
  heading: string;
  line: number;
  commands: string[];
}

/** The fenced sh blocks with the heading they sit under; a command is a line (continued by a trailing backslash). */
export function shBlocks(md: string): Block[] {
  const out: Block[] = [];
  const lines = md.split('\n');
  let heading = '(top)';
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (/^#{1,6} /.test(l)) heading = l.replace(/^#+ /, '');
    if (l.trim() !== '```sh') continue;
    const start = i + 1;
    const commands: string[] = [];
    let pending = '';
    for (i++; i < lines.length && lines[i]!.trim() !== '```'; i++) {
      const text = lines[i]!;
      if (text.endsWith('\\')) {
        pending += text.slice(0, -1) + ' ';
        continue;
      }
      const cmd = (pending + text).trim();
      pending = '';
      if (cmd !== '' && !cmd.startsWith('#')) commands.push(cmd);
    }
    out.push({ heading, line: start, commands });
  }
  return out;
}

/** Shell words of a simple command (quotes, no expansions), up to an unquoted `#` comment, `&`, `|` or `>`. */
export function words(cmd: string): string[] {
  const out: string[] = [];
  let cur: string | null = null;
  for (let i = 0; i < cmd.length; i++) {
    const c = cmd[i]!;
    if (c === "'" || c === '"') {
      const end = cmd.indexOf(c, i + 1);
      if (end < 0) throw new Error(`unbalanced quote in: ${cmd}`);
      cur = (cur ?? '') + cmd.slice(i + 1, end);
      i = end;
    } else if (/\s/.test(c)) {
      if (cur !== null) out.push(cur);
      cur = null;
    } else if ((c === '#' && cur === null) || c === '&' || c === '|' || c === '>') {
      break;
    } else cur = (cur ?? '') + c;
  }
  if (cur !== null) out.push(cur);
  return out;
}

type Plan = { kind: 'shell'; cmd: string } | { kind: 'flags'; argv: string[]; why: string } | { kind: 'skip'; why: string };

/** The venue a `bookmaker` command would reach, or null when it runs locally (a --base-url, a local config, no venue). */
function venueOf(argv: string[]): Promise<string | null> | string | null {
  const [name] = argv;
  if (argv.includes('--base-url')) return null;
  if (name === 'markets' || name === 'book') return argv.includes('--chain') ? argv[argv.indexOf('--chain') + 1]! : 'mainnet';
  if (name === 'run' || name === 'record' || name === 'doctor') {
    const i = Math.max(argv.indexOf('-c'), argv.indexOf('--config'));
    if (i < 0) return 'mainnet';
    return loadConfig(join(REPO, argv[i + 1]!), { env: {} }).then((c) =>
      c.venue.kind === 'local' ? null : c.venue.kind === 'url' ? c.venue.baseUrl : c.venue.kind,
    );
  }
  return null;
}

async function plan(cmd: string): Promise<Plan> {
  let w: string[];
  try {
    w = words(cmd);
  } catch {
    return { kind: 'shell', cmd }; // command substitutions with nested quotes: for bash, never the venue
  }
  if (w[0] === 'docker')
    return {
      kind: 'skip',
      why: "Docker is not available on these machines; test/deploy/image-commands.test.ts runs the image's commands the way the Dockerfile does",
    };
  if (w[0] === 'kubectl') return { kind: 'skip', why: 'needs a Kubernetes cluster; test/deploy/kubernetes.test.ts checks the manifest' };
  if (w[0] === 'npm' && w[1] === 'ci') return { kind: 'skip', why: 'installs node_modules; .ci/run runs it on a clean checkout' };
  if (w[0] === 'npm' && w[1] === 'test') return { kind: 'skip', why: 'the suite this test is part of; .ci/run runs it' };
  if (w[0] === 'npm' && w[1] === 'start') return { kind: 'shell', cmd: `${cmd.replace(/#.*$/, '').trim()} -- --duration ${RUN_SECONDS} --metrics-port 0` };
  if (w[0] === 'bookmaker') {
    const venue = await venueOf(w.slice(1));
    if (venue !== null) return { kind: 'flags', argv: w.slice(1), why: `needs the real venue (${venue})` };
  }
  return { kind: 'shell', cmd };
}

/** Flag and config check of a command that would reach the real venue: its own parser, its config loaded. */
async function checkFlags(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  const spec = (await import(`../src/cli/commands/${name}.ts`)).default as CommandSpec;
  const parsed = parseArgs(rest, spec.options);
  const cfg = parsed.options.config;
  if (typeof cfg === 'string') await loadConfig(join(REPO, cfg), { env: {} });
  // the command's own checks that run before any request
  if (name === 'markets') checkMarketsArgs(parsed);
  if (name === 'book') readBookArgs(parsed);
}

const prelude = (state: string) => `
set -eE -o pipefail
trap 'echo "README command failed (exit $?): $BASH_COMMAND" >&2' ERR
trap 'export -p > "${state}/env.sh"' EXIT
[ -f "${state}/env.sh" ] && . "${state}/env.sh"
cd "${state}/work"
bookmaker() {
  local cmd="$1"; shift
  case "$cmd" in
    run)
      local args=() skip=0 a
      for a in "$@"; do
        if [ $skip = 1 ]; then skip=0; continue; fi
        case "$a" in --duration|--metrics-port) skip=1; continue;; esac
        args+=("$a")
      done
      node "${REPO}/bin/bookmaker.js" run "\${args[@]}" --duration ${RUN_SECONDS} --metrics-port 0 ;;
    doctor)
      # the metrics port check binds the port: never the default 9464 a running bot (or another test) holds
      local dargs=() dskip=0 d
      for d in "$@"; do
        if [ $dskip = 1 ]; then dskip=0; continue; fi
        case "$d" in --metrics-port) dskip=1; continue;; esac
        dargs+=("$d")
      done
      node "${REPO}/bin/bookmaker.js" doctor "\${dargs[@]}" --metrics-port 0 ;;
    *) node "${REPO}/bin/bookmaker.js" "$cmd" "$@" ;;
  esac
}
# a foreground sim: must come up, answer, and stop cleanly on SIGTERM
bm_sim_foreground() {
  local log; log=$(mktemp "${state}/sim-XXXX.log")
  node "${REPO}/bin/bookmaker.js" sim "$@" > "$log" 2>&1 &
  local pid=$! i
  for i in $(seq 1 300); do
    grep -q '^listening http' "$log" && break
    kill -0 $pid 2>/dev/null || { cat "$log" >&2; return 1; }
    sleep 0.1
  done
  grep -q '^listening http' "$log" || { echo "sim did not print its listening line" >&2; cat "$log" >&2; return 1; }
  local url; url=$(awk '/^listening /{ print $2; exit }' "$log")
  curl -sS --fail --retry 10 --retry-max-time 30 "$url/markets" > /dev/null   # a profile may inject 5xx/429
  kill -TERM $pid
  wait $pid
}
`;

const work = mkdtempSync(join(tmpdir(), 'bm-readme-'));
const state = join(work, 'state');
mkdirSync(join(state, 'work'), { recursive: true });
// the reader's checkout: the repository's folders, and the files the commands write stay in the scratch folder
for (const name of ['bin', 'src', 'config', 'data', 'strategies', 'docs', 'package.json', 'tsconfig.json', 'node_modules']) {
  if (existsSync(join(REPO, name))) symlinkSync(join(REPO, name), join(state, 'work', name));
}

/** process groups of the blocks' shells: what a block left in the background (a sim) is stopped at the end */
const groups: number[] = [];
after(async () => {
  for (const pgid of groups) {
    try {
      process.kill(-pgid, 'SIGTERM');
    } catch {
      // nothing left in that group
    }
  }
  await new Promise((r) => setTimeout(r, 500)); // a sim saves its state on SIGTERM before the folder goes
  rmSync(work, { recursive: true, force: true });
});

const PAGES = pagesInOrder();
const blocks = PAGES.flatMap((file) => shBlocks(readFileSync(join(REPO, file), 'utf8')).map((b) => ({ ...b, file })));
/** sections whose blocks another test runs in the setting they need */
const RUN_ELSEWHERE: Record<string, string> = {
  'Writing your own':
    'run by test/package/pack-install.test.ts, which packs this checkout, installs the tarball into a project outside the repository and runs these commands there',
};
const shown = (cmd: string) => cmd.replace(/\s+#.*$/, '');
/**
 * CPU seconds (user + system) of this process's reaped children and theirs (Linux: /proc/self/stat cutime + cstime,
 * 100 ticks a second), or null elsewhere: each block's cost, said in its diagnostics (the blocks run one at a time).
 */
function childrenCpu(): number | null {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[13]) + Number(f[14])) / 100;
  } catch {
    return null;
  }
}
let ports: Map<string, string> | undefined;

test('the README and docs/ have the blocks this test is about, in reading order', () => {
  const at = (h: string) => [...new Set(blocks.filter((b) => b.heading === h || b.heading.startsWith(h)).map((b) => b.file))];
  assert.deepEqual(at('Quick start'), ['README.md']);
  for (const h of ['Running the bot:', 'The local exchange:', 'Markets and books:', 'Signing without sending:', 'Testnet', 'Live'])
    assert.deepEqual(at(h), ['docs/getting-started.md'], `a sh block under "${h}"`);
  assert.deepEqual(at('Importers'), ['docs/recording-format.md'], 'the importers block');
  assert.ok(at('Commands').includes('docs/backtesting.md'), 'the backtest commands');
  // the sim of "run" is started before the pages that use it, the import before the backtests
  assert.ok(PAGES.indexOf('docs/getting-started.md') < PAGES.indexOf('docs/recording-format.md'));
  assert.ok(PAGES.indexOf('docs/recording-format.md') < PAGES.indexOf('docs/backtesting.md'));
  assert.ok(blocks.every((b) => b.commands.length > 0));
});

for (const b of blocks) {
  const where = `${b.file}:${b.line}`;
  test(`${where} (${b.heading}): every command works`, { timeout: BLOCK_TIMEOUT_MS }, async (t) => {
    ports ??= new Map([
      ['8787', String(await freePort())],
      ['8788', String(await freePort())],
    ]);
    const script: string[] = [];
    if (RUN_ELSEWHERE[b.heading]) {
      for (const raw of b.commands) t.diagnostic(`not run here: ${shown(raw)}`);
      t.diagnostic(RUN_ELSEWHERE[b.heading]!);
      const named = /test\/\S+\.test\.ts/.exec(RUN_ELSEWHERE[b.heading]!)![0];
      assert.ok(existsSync(join(REPO, named)), `${named} exists`);
      assert.match(
        readFileSync(join(REPO, named), 'utf8'),
        new RegExp(`readmeBlock\\('#{2,3} ${b.heading}', 'sh'`),
        `${named} reads the "${b.heading}" block of ${b.file}`,
      );
      return;
    }
    for (const raw of b.commands) {
      let cmd = raw;
      for (const [from, to] of ports) cmd = cmd.replaceAll(from, to);
      const p = await plan(cmd);
      if (p.kind === 'skip') {
        t.diagnostic(`not run: ${shown(raw)} (${p.why})`);
        continue;
      }
      if (p.kind === 'flags') {
        await checkFlags(p.argv).catch((e: Error) => assert.fail(`${raw}: ${e.message}`));
        t.diagnostic(`flags and config checked, not sent: ${shown(raw)} (${p.why})`);
        continue;
      }
      const fg = /^bookmaker sim\b/.test(p.cmd) && !/&\s*(#.*)?$/.test(p.cmd);
      script.push(fg ? p.cmd.replace(/^bookmaker sim\b/, 'bm_sim_foreground') : p.cmd);
    }
    if (script.length === 0) return;
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BOOKMAKER_')));
    const cpu0 = childrenCpu();
    const child = spawn('bash', ['-c', prelude(state) + script.join('\n')], {
      env: { ...env, FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group, so what it leaves running can be stopped as a whole
    });
    groups.push(child.pid!);
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), BLOCK_TIMEOUT_MS - 5_000);
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    clearTimeout(timer);
    const cpu1 = childrenCpu();
    if (cpu0 !== null && cpu1 !== null) t.diagnostic(`cpu ${(cpu1 - cpu0).toFixed(1)} s (the block's shell and what it waited for)`);
    if (code !== 0) writeFileSync(join(work, `block-${b.file.replaceAll('/', '-')}-${b.line}.log`), out);
    assert.equal(code, 0, `${where} (${b.heading}) failed:\n${out.slice(-4000)}`);
  });
}
