/**
 * Test helpers that treat bookmaker as a published package: pack this checkout into a tarball the way
 * `npm pack` does for a release (prepack → `npm run build`), without touching the checkout itself (the
 * build runs in a copy, so no dist/ appears in the working tree), and run npm in a clean environment.
 */
import { execFileSync, type ExecFileSyncOptions } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { oncePerMachineSync } from '../support/machine-cache.ts';

export const REPO = resolve(import.meta.dirname, '..', '..');
/** What a release is built from (everything else in the checkout is tests, CI, data and docs images). */
const SOURCES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'README.md', 'bin', 'src', 'strategies', 'config', 'docs'];

/** npm settings a child npm keeps from our environment (where packages come from and are cached). */
const KEEP_NPM = /^npm_config_(cache|registry|userconfig|globalconfig|proxy|https_proxy|noproxy|cafile|strict_ssl)$/i;

/**
 * The environment for a child npm: ours without the npm_* variables of the `npm test` that runs us
 * (npm_config_local_prefix and the like would point the child at this checkout), keeping KEEP_NPM.
 */
export function npmEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) || KEEP_NPM.test(k)) env[k] = v;
  return { ...env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', ...extra };
}

export function npm(args: readonly string[], cwd: string, opts: ExecFileSyncOptions = {}): string {
  return execFileSync('npm', args, { cwd, env: npmEnv(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20, ...opts }) as string;
}

/**
 * npm settings for a fresh install of bookmaker's dependencies that spare it compiling SQLite:
 * better-sqlite3's install step (prebuild-install) takes a *local prebuild* where one is offered, as it
 * would take the one it downloads, and compiles SQLite from source only when it finds neither (offline,
 * that is a couple of CPU-minutes). The prebuild offered is packed, in `dir`, from this checkout's own
 * install of better-sqlite3 (same version, same Node ABI, this machine). Where the install resolves
 * another version, the file name does not match and npm builds as it would without this.
 */
export function localPrebuilds(dir: string): NodeJS.ProcessEnv {
  const pkg = join(REPO, 'node_modules', 'better-sqlite3');
  if (!existsSync(join(pkg, 'build', 'Release', 'better_sqlite3.node'))) return {};
  const { version } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { version: string };
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  mkdirSync(dir, { recursive: true });
  execFileSync('tar', ['-czf', join(dir, name), '-C', pkg, 'build/Release/better_sqlite3.node']);
  return { npm_config_better_sqlite3_local_prebuilds: dir };
}

/** sha256 over the release sources' paths and contents: the tarball of these sources. */
function sourcesHash(): string {
  const h = createHash('sha256');
  const walk = (rel: string): void => {
    const abs = join(REPO, rel);
    if (statSync(abs).isDirectory()) for (const name of readdirSync(abs).sort()) walk(join(rel, name));
    else h.update(`${rel}\0`).update(readFileSync(abs)).update('\0');
  };
  for (const p of SOURCES) walk(p);
  return h.digest('hex').slice(0, 16);
}

/**
 * The tarball of this checkout's sources, copied to `work/`. Packing builds the code (prepack: the type-checked
 * `npm run build`, ~40 CPU-s), so the tarball is kept in the OS temp folder under the hash of the sources and
 * reused by the next test that packs the same sources: the package tests, and the image test's build stage
 * (builtDist). Packed once per machine (test/support/machine-cache.ts): the tests that want it at the same time
 * (they start together in a suite) wait for one `npm pack` rather than each running their own.
 */
export function packBookmaker(work: string): string {
  const cacheDir = join(tmpdir(), 'bookmaker-pack-cache');
  const cached = join(cacheDir, `bookmaker-${sourcesHash()}.tgz`);
  mkdirSync(cacheDir, { recursive: true });
  oncePerMachineSync(cached, (own) => {
    const fresh = packFresh(mkdtempSync(join(tmpdir(), 'bookmaker-pack-build-')));
    renameSync(fresh, own);
    rmSync(dirname(fresh), { recursive: true, force: true });
    // keep the cache small: the newest few tarballs (other checkouts may be packing their own sources)
    const old = readdirSync(cacheDir)
      .filter((f) => f.endsWith('.tgz'))
      .map((f) => join(cacheDir, f))
      .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)
      .slice(8);
    for (const f of old) rmSync(f, { force: true });
  });
  const version = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
  const out = join(work, `bookmaker-${version}.tgz`);
  copyFileSync(cached, out);
  return out;
}

/**
 * The build (`npm run build` → dist/) of this checkout's sources, as the package's prepack emitted it, put at
 * `dir`/dist: the tarball's dist/ is the whole of what `tsc -p tsconfig.build.json` emits (the .js and the .d.ts
 * of src/ and strategies/, all in package.json's "files"). For a test whose build step is that same command on
 * the same sources (the Dockerfile's build stage), rather than a second type-checked build.
 */
export function builtDist(dir: string): void {
  const work = mkdtempSync(join(tmpdir(), 'bookmaker-dist-'));
  try {
    execFileSync('tar', ['-xzf', packBookmaker(work), '-C', work, 'package/dist']);
    renameSync(join(work, 'package', 'dist'), join(dir, 'dist'));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Copies the release sources into `dir` with node_modules linked to this checkout's install; returns `dir`. */
export function copyCheckout(dir: string): string {
  mkdirSync(dir, { recursive: true });
  for (const p of SOURCES) cpSync(join(REPO, p), join(dir, p), { recursive: true });
  symlinkSync(realpathSync(join(REPO, 'node_modules')), join(dir, 'node_modules'), 'dir');
  return dir;
}

/** Copies the release sources into `work/checkout`, runs `npm pack` there and returns the tarball's path. */
function packFresh(work: string): string {
  const checkout = copyCheckout(join(work, 'checkout'));
  npm(['pack', '--pack-destination', work], checkout);
  const tgz = readdirSync(work).find((f) => /^bookmaker-.*\.tgz$/.test(f));
  if (!tgz) throw new Error(`npm pack wrote no tarball in ${work}`);
  return join(work, tgz);
}

/**
 * The fenced block of `lang` after `heading` (the nth one, default the first), in README.md or, for the
 * sections that moved there, the first page of docs/ that has the heading.
 */
export function readmeBlock(heading: string, lang: string, nth = 0): string {
  const pages = [
    'README.md',
    ...readdirSync(join(REPO, 'docs'))
      .filter((n) => n.endsWith('.md'))
      .sort()
      .map((n) => join('docs', n)),
  ];
  const page = pages.map((p) => ({ p, text: readFileSync(join(REPO, p), 'utf8') })).find(({ text }) => text.includes(heading));
  if (!page) throw new Error(`neither README.md nor docs/ has "${heading}"`);
  const readme = page.text;
  const from = readme.indexOf(heading);
  const next = readme.indexOf('\n## ', from + heading.length);
  const section = readme.slice(from, next < 0 ? undefined : next);
  const blocks = [...section.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
  if (blocks[nth] === undefined) throw new Error(`${page.p} "${heading}" has no ${lang} block #${nth}`);
  return blocks[nth];
}
