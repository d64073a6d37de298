/**
 * Strategy registry: built-ins by name (strategies/<name>/index.ts), or a user's module by path
 * (relative to the config file's folder). A module exports the StrategyModule as its default
 * export or as `strategy`; its shape is checked before use so a wrong file fails at start-up with a
 * ConfigError, not mid-quote.
 */
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError } from '../model/errors.ts';
import { COMPILED, SOURCE_EXT } from '../core/source-ext.ts';
import type { StrategyModule } from './types.ts';

export const BUILTIN_STRATEGIES = ['bands', 'avellaneda', 'oracle-anchored', 'glft', 'binary', 'follow', 'lopsided'] as const;
export type BuiltinStrategy = (typeof BUILTIN_STRATEGIES)[number];

const STRATEGIES_DIR = new URL('../../strategies/', import.meta.url);

/** A reference is a path when it names a file or folder rather than a bare built-in name. */
export function isStrategyPath(ref: string): boolean {
  return ref.startsWith('.') || ref.startsWith('/') || /\.(ts|js|mjs)$/.test(ref) || ref.includes('/');
}

export function isStrategyModule(x: unknown): x is StrategyModule {
  if (typeof x !== 'object' || x === null) return false;
  const m = x as Record<string, unknown>;
  return typeof m.name === 'string' && typeof m.parseConfig === 'function' && typeof m.quote === 'function';
}

/** Where a reference points: a file URL. Throws ConfigError for an unknown built-in name. */
export function strategyUrl(ref: string, baseDir: string): URL {
  if (isStrategyPath(ref)) return pathToFileURL(isAbsolute(ref) ? ref : resolve(baseDir, ref));
  if (!(BUILTIN_STRATEGIES as readonly string[]).includes(ref)) {
    throw new ConfigError(`unknown strategy "${ref}": expected one of ${BUILTIN_STRATEGIES.join(', ')} or a path to a module (./my-strategy.ts)`);
  }
  return new URL(`${ref}/index${SOURCE_EXT}`, STRATEGIES_DIR);
}

const cache = new Map<string, Promise<StrategyModule>>();

export async function loadStrategy(ref: string, baseDir = process.cwd()): Promise<StrategyModule> {
  const url = strategyUrl(ref, baseDir).href;
  let p = cache.get(url);
  if (!p) {
    p = importModule(ref, url);
    cache.set(url, p);
    p.catch(() => cache.delete(url)); // a failed load may be fixed and retried
  }
  return p;
}

let tsLoader: Promise<void> | null = null;

/**
 * A user's `.ts` strategy needs a TypeScript loader with both of tsx's hooks. The compiled package has no
 * loader of its own: register tsx when the user's project has it (`npm i -D tsx`), or say how to proceed.
 * From source the ES-module hook is already in place (bin/bookmaker.js), but a `.ts` file in a folder
 * whose package.json does not say `"type": "module"` (or with no package.json, e.g. beside a config in
 * /etc) is CommonJS to tsx, and Node then cannot `import` its `export default` without tsx's CommonJS hook
 * (ERR_REQUIRE_CYCLE_MODULE): that hook is registered here in both cases.
 */
function ensureTypeScriptLoader(ref: string): Promise<void> {
  tsLoader ??= (async () => {
    if (COMPILED) ((await import('tsx/esm/api')) as { register: () => unknown }).register();
    ((await import('tsx/cjs/api')) as { register: () => unknown }).register();
  })().catch((e: unknown) => {
    tsLoader = null;
    throw new ConfigError(
      `strategy "${ref}": a TypeScript strategy needs a TypeScript loader; install tsx in your project (npm i -D tsx) or compile the strategy to .js`,
      { cause: e },
    );
  });
  return tsLoader;
}

async function importModule(ref: string, url: string): Promise<StrategyModule> {
  let mod: Record<string, unknown>;
  if (/\.(?:ts|mts|cts)$/.test(new URL(url).pathname) && !url.startsWith(STRATEGIES_DIR.href)) await ensureTypeScriptLoader(ref);
  try {
    mod = (await import(url)) as Record<string, unknown>;
  } catch (e) {
    throw new ConfigError(`strategy "${ref}": cannot load module (${(e as Error).message?.split('\n')[0] ?? 'error'})`, { cause: e });
  }
  // A `.ts` file that is CommonJS to tsx (no `"type": "module"` above it) compiles `export default` to
  // `exports.default`; Node's import then hands over the whole exports object as the default
  const outer = mod.default ?? mod.strategy;
  const inner = (outer as { default?: unknown } | null | undefined)?.default;
  const cand = !isStrategyModule(outer) && isStrategyModule(inner) ? inner : outer;
  if (!isStrategyModule(cand)) {
    throw new ConfigError(`strategy "${ref}": expected a default export { name, parseConfig(raw, path), quote(view, config) }`);
  }
  return cand;
}
