#!/usr/bin/env node
// Maps a position in tsx's output (what V8's traces name: `FILE.ts:1:COL`, tsx emits one line per module) to
// the TypeScript source line: the file is transformed with esbuild as tsx transforms it (minifyWhitespace,
// keepNames; esbuild comes with tsx) and the source map read back.
//
//   node scripts/tsx-position.mjs [--root DIR] src/state/reduce.ts:1:8097 [more positions …]
//
// Prints, per position: the source line, its text and the generated code at the position.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const rootAt = args.indexOf('--root');
const root = rootAt >= 0 ? args.splice(rootAt, 2)[1] : process.cwd();
const { transformSync } = await import('esbuild');

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
/** source-map `mappings` → per generated line, [generated column, source line, source column] segments */
function decode(mappings) {
  const lines = [];
  let srcLine = 0;
  let srcCol = 0;
  for (const l of mappings.split(';')) {
    const segs = [];
    let col = 0;
    for (const seg of l.split(',')) {
      if (!seg) continue;
      const v = [];
      let shift = 0;
      let val = 0;
      for (const ch of seg) {
        const d = B64.indexOf(ch);
        val += (d & 31) << shift;
        if (d & 32) shift += 5;
        else {
          v.push(val & 1 ? -(val >> 1) : val >> 1);
          val = 0;
          shift = 0;
        }
      }
      col += v[0];
      if (v.length > 1) {
        srcLine += v[2];
        srcCol += v[3];
      }
      segs.push([col, srcLine, srcCol]);
    }
    lines.push(segs);
  }
  return lines;
}

const files = new Map();
for (const pos of args) {
  const m = /^(.*\.[cm]?ts):(\d+):(\d+)$/.exec(pos);
  if (!m) {
    console.log(`${pos}: not FILE.ts:LINE:COL`);
    continue;
  }
  let f = files.get(m[1]);
  if (!f) {
    const src = readFileSync(join(root, m[1]), 'utf8');
    const out = transformSync(src, {
      loader: 'ts',
      format: 'esm',
      target: `node${process.versions.node}`,
      sourcemap: true,
      minifyWhitespace: true,
      keepNames: true,
      sourcefile: m[1],
    });
    f = { src: src.split('\n'), map: decode(JSON.parse(out.map).mappings), code: out.code.split('\n') };
    files.set(m[1], f);
  }
  const line = Number(m[2]) - 1;
  const col = Number(m[3]) - 1;
  let best = null;
  for (const s of f.map[line] ?? []) if (s[0] <= col) best = s;
  const gen = (f.code[line] ?? '').slice(col, col + 60);
  console.log(best ? `${pos} -> ${m[1]}:${best[1] + 1}  ${f.src[best[1]].trim().slice(0, 110)}  | at: ${gen}` : `${pos}: no mapping`);
}
