#!/usr/bin/env node
// `npm test [-- FILE|DIR ...]`: runs Node's built-in test runner (with the tsx loader) over every
// test/**/*.test.ts (or only the files/folders given). Node 20's --test takes no globs, hence this.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawn } from 'node:child_process';

function collect(path, out) {
  const st = statSync(path);
  if (st.isDirectory()) {
    for (const name of readdirSync(path).sort()) {
      if (name === 'node_modules' || name === 'bench') continue;
      collect(join(path, name), out);
    }
  } else if (path.endsWith('.test.ts')) out.push(path);
  return out;
}

const args = process.argv.slice(2);
const flags = args.filter((a) => a.startsWith('--'));
const targets = args.filter((a) => !a.startsWith('--'));
const files = (targets.length ? targets : ['test']).flatMap((t) => collect(t, [])).map((f) => relative(process.cwd(), f));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const concurrency = process.env.BOOKMAKER_TEST_CONCURRENCY ?? '2';
const child = spawn(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...flags, ...files], { stdio: 'inherit' });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
