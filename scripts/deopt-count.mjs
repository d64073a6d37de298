#!/usr/bin/env node
// Counts V8 optimisations and deopts per function in a trace written by rotation-soak's `--bot-trace FILE`
// (lines `<seconds> [completed optimizing …]`, `<seconds> [bailout (kind: …, reason: …): … <JSFunction NAME (sfi = …)> …]`,
// `<seconds> ;;; deoptimize at <FILE:LINE:COL>`), from a start time on (`--after SECONDS`, default 300).
//
//   node scripts/deopt-count.mjs FILE [--after 300] [--until SECONDS] [--top 40]
//
// Prints: totals; per function, optimisations (re-optimisations when it had been optimised before the window),
// deopts (bailouts) and code discarded (`[marking dependent code …, reason: …]`: `code dependencies`, a field's
// type changed; `weak objects`, an object the code embeds (a map, a function, a context) died in a GC); per deopt
// site (function, reason, innermost position), the count.
import { readFileSync } from 'node:fs';

const file = process.argv[2];
if (!file) {
  console.error('usage: node scripts/deopt-count.mjs FILE [--after SECONDS] [--until SECONDS] [--top N]');
  process.exit(2);
}
const opt = (name, d) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : d;
};
const AFTER = opt('after', 300);
const UNTIL = opt('until', Infinity);
const TOP = opt('top', 40);

const fnOf = (line) => {
  const m = /<JSFunction ?([^ ]*) \(sfi = (0x[0-9a-f]+)\)>/.exec(line);
  return m ? `${m[1] || '(anonymous)'}` : '?';
};
const shortPos = (p) => p.replace(/^file:\/\//, '').replace(/^.*?\/(src|node_modules)\//, '$1/');

const opts = new Map(); // fn -> count in window
const optsBefore = new Map(); // fn -> count before window
const deopts = new Map(); // fn -> count in window
const sites = new Map(); // fn|reason|pos -> count
const marked = new Map(); // fn|reason -> count of code objects marked for deopt (a broken dependency, a dead embedded map)
let totalMarked = 0;
let pending = null; // the last bailout, waiting for its `deoptimize at`
let totalOpt = 0;
let totalDeopt = 0;
const bump = (m, k, n = 1) => m.set(k, (m.get(k) ?? 0) + n);
const flush = (pos) => {
  if (!pending) return;
  bump(sites, `${pending.fn} | ${pending.kind}: ${pending.reason} | ${pos ? shortPos(pos) : '?'}`);
  pending = null;
};
for (const raw of readFileSync(file, 'utf8').split('\n')) {
  const sp = raw.indexOf(' ');
  if (sp < 0) continue;
  const t = Number(raw.slice(0, sp));
  const line = raw.slice(sp + 1).trim();
  const inWindow = t >= AFTER && t < UNTIL;
  if (line.startsWith(';;; deoptimize at')) {
    const m = /<([^>]*)>/.exec(line);
    if (pending) flush(m ? m[1] : null);
    continue;
  }
  flush(null);
  if (line.startsWith('[completed optimizing')) {
    const fn = fnOf(line) + (line.includes(' OSR]') ? ' [OSR]' : '');
    if (inWindow) {
      bump(opts, fn);
      totalOpt++;
    } else if (t < AFTER) bump(optsBefore, fn);
  } else if (line.startsWith('[marking dependent code')) {
    if (!inWindow) continue;
    const m = /<SharedFunctionInfo ?([^>]*)>.*reason: ([^\]]*)\]/.exec(line);
    bump(marked, `${(m && m[1]) || '(anonymous)'} | ${m ? m[2] : '?'}`);
    totalMarked++;
  } else if (line.startsWith('[bailout (kind')) {
    if (!inWindow) continue;
    const m = /kind: ([^,]+), reason: ([^)]*)\)/.exec(line);
    const fn = fnOf(line);
    bump(deopts, fn);
    totalDeopt++;
    pending = { fn, kind: m ? m[1] : '?', reason: m ? m[2] : '?' };
  }
}
flush(null);

const sorted = (m) => [...m].sort((a, b) => b[1] - a[1]);
console.log(
  `window ${AFTER} s – ${UNTIL === Infinity ? 'end' : `${UNTIL} s`}: ${totalOpt} optimisations, ${totalDeopt} deopts (bailouts), ${totalMarked} code objects marked for deopt`,
);
const reopt = [...opts.keys()].filter((k) => optsBefore.has(k));
console.log(`functions optimised in the window: ${opts.size} (${reopt.length} of them optimised before it too: re-optimisations)`);
console.log(`\n# optimisations in the window, by function (before the window)`);
for (const [fn, n] of sorted(opts).slice(0, TOP)) console.log(`${String(n).padStart(5)}  ${fn} (${optsBefore.get(fn) ?? 0})`);
console.log(`\n# deopts in the window, by function`);
for (const [fn, n] of sorted(deopts).slice(0, TOP)) console.log(`${String(n).padStart(5)}  ${fn}`);
console.log(`\n# code marked for deopt in the window, by function | reason ('weak objects': an object it embeds died in a GC)`);
for (const [k, n] of sorted(marked).slice(0, TOP)) console.log(`${String(n).padStart(5)}  ${k}`);
console.log(`\n# deopts in the window, by site (function | kind: reason | innermost position)`);
for (const [k, n] of sorted(sites).slice(0, TOP)) console.log(`${String(n).padStart(5)}  ${k}`);
