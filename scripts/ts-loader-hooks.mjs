// Module hooks of scripts/ts-loader.mjs (they run in Node's hooks thread). A .ts/.mts file in an ESM package scope
// is compiled by esbuild with the options tsx 4 uses for it (target this Node, format esm, keepNames,
// minifyWhitespace, an inline source map, this package's tsconfig compilerOptions), and the output kept in
// BOOKMAKER_TS_CACHE (default: the OS temp folder's bookmaker-ts-cache) under a hash of the loader's version,
// esbuild's, the options, the file's name and its content: a file compiled once serves every later process and
// every checkout of the machine (the source map names the file by its base name, resolved beside the module).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const VERSION = '1';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const cacheDir = process.env.BOOKMAKER_TS_CACHE || join(tmpdir(), 'bookmaker-ts-cache');
let tsconfigRaw = {};
try {
  tsconfigRaw = { compilerOptions: JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8')).compilerOptions ?? {} };
} catch {
  // no tsconfig.json: esbuild's defaults
}
const options = {
  target: `node${process.versions.node}`,
  format: 'esm',
  loader: 'ts',
  sourcemap: 'inline',
  minifyWhitespace: true,
  keepNames: true,
  tsconfigRaw,
};
let esbuild = null;
let esbuildVersion = null;
function esbuildPkgVersion() {
  if (esbuildVersion === null) esbuildVersion = JSON.parse(readFileSync(require.resolve('esbuild/package.json'), 'utf8')).version;
  return esbuildVersion;
}
const optionsKey = JSON.stringify(options);

/** The package scope's "type" of a file: the nearest package.json's, as Node reads it. */
const scopeTypes = new Map();
function scopeType(dir) {
  const hit = scopeTypes.get(dir);
  if (hit !== undefined) return hit;
  let type;
  try {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    type = pkg.type === 'module' ? 'module' : 'commonjs';
  } catch (e) {
    const up = dirname(dir);
    type = e.code === 'ENOENT' && up !== dir ? scopeType(up) : 'commonjs';
  }
  scopeTypes.set(dir, type);
  return type;
}

function compile(path) {
  const source = readFileSync(path, 'utf8');
  const name = basename(path);
  const key = createHash('sha256').update(`${VERSION}\0${esbuildPkgVersion()}\0${optionsKey}\0${name}\0${source}`).digest('hex');
  const cached = join(cacheDir, `${key}.js`);
  try {
    return readFileSync(cached, 'utf8');
  } catch {
    // not compiled yet
  }
  esbuild ??= require('esbuild');
  const { code } = esbuild.transformSync(source, { ...options, sourcefile: name });
  try {
    mkdirSync(cacheDir, { recursive: true });
    const tmp = `${cached}.${process.pid}.${Math.random().toString(36).slice(2)}`;
    writeFileSync(tmp, code);
    renameSync(tmp, cached);
  } catch {
    // an unwritable cache: compiled again next time
  }
  return code;
}

export async function load(url, context, nextLoad) {
  if (url.startsWith('file:') && /\.m?ts$/.test(new URL(url).pathname)) {
    const path = fileURLToPath(url);
    if (!path.endsWith('.mts') && scopeType(dirname(path)) !== 'module') {
      throw new Error(
        `${path}: TypeScript outside an ESM package scope; the test runner's loader (scripts/ts-loader.mjs) compiles ESM only: run this test file under tsx (TSX_FILES in scripts/test.mjs)`,
      );
    }
    return { format: 'module', source: compile(path), shortCircuit: true };
  }
  return nextLoad(url, context);
}
