/**
 * heap-diff: what grew between two heap snapshots of one process (docs/performance/soak-growth.md).
 *
 *   node --max-old-space-size=4096 scripts/heap-diff.mjs EARLIER.heapsnapshot LATER.heapsnapshot
 *
 * Take the snapshots with `--heapsnapshot-signal=SIGUSR2` on the process (each follows a full GC). Printed:
 * reachable self size of each; self size and count by node type and name, growth first; the same summed by
 * owner (the first two named classes on the shortest strong path to the GC roots, e.g. `MarketBook.folded <-
 * Account.books`), code and native nodes aside; self size by kind (V8's code and its side data apart); by
 * dominating owner, code aside: each object counted once, under the nearest object of a named class (or a
 * module's or closure's variable, `(root)|ctx.pool`) that dominates it, i.e. whose going would free it; the
 * optimised code new in the later snapshot by the script of the function running it; and the retainer paths
 * of a few objects new in the later snapshot (V8's node ids are stable across one process's snapshots;
 * native nodes get new ids each time).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** class names that say nothing of who owns an object (the dominator owner looks further up) */
const GENERIC = /^(Object|Array|Map|Set|WeakMap|WeakSet|Promise|Generator|Function|Error|global|system \/ .*|)$/;
/** this repository's directory, cut from script names */
const ROOT_DIR = fileURLToPath(new URL('../', import.meta.url));

function load(file) {
  const s = JSON.parse(readFileSync(file, 'utf8'));
  const m = s.snapshot.meta;
  const NF = m.node_fields.length;
  const EF = m.edge_fields.length;
  const nTypes = m.node_types[0];
  const eTypes = m.edge_types[0];
  const [iType, iName, iId, iSize, iEc] = ['type', 'name', 'id', 'self_size', 'edge_count'].map((f) => m.node_fields.indexOf(f));
  const [eType, eName, eTo] = ['type', 'name_or_index', 'to_node'].map((f) => m.edge_fields.indexOf(f));
  const { nodes, edges, strings } = s;
  const N = nodes.length / NF;
  const first = new Uint32Array(N + 1);
  for (let i = 0, e = 0; i < N; i++) {
    first[i] = e;
    e += nodes[i * NF + iEc] * EF;
    first[i + 1] = e;
  }
  const strong = (e) => eTypes[edges[e + eType]] !== 'weak';
  const type = (i) => nTypes[nodes[i * NF + iType]];
  const name = (i) => strings[nodes[i * NF + iName]];
  const group = (i) => {
    const t = type(i);
    return /string/.test(t) ? `(${t})` : `${t}:${name(i).slice(0, 60)}`;
  };
  // strong retainers of each node
  const count = new Uint32Array(N + 1);
  for (let e = 0; e < edges.length; e += EF) if (strong(e)) count[edges[e + eTo] / NF + 1]++;
  for (let i = 0; i < N; i++) count[i + 1] += count[i];
  const from = new Uint32Array(count[N]);
  const via = new Uint32Array(count[N]);
  const at = count.slice(0, N);
  for (let i = 0; i < N; i++)
    for (let e = first[i]; e < first[i + 1]; e += EF)
      if (strong(e)) {
        const t = edges[e + eTo] / NF;
        from[at[t]] = i;
        via[at[t]++] = e;
      }
  // distance from the root (node 0) over strong edges; -1: unreachable
  const dist = new Int32Array(N).fill(-1);
  dist[0] = 0;
  const q = [0];
  for (let h = 0; h < q.length; h++)
    for (let e = first[q[h]]; e < first[q[h] + 1]; e += EF) {
      const t = edges[e + eTo] / NF;
      if (strong(e) && dist[t] < 0) {
        dist[t] = dist[q[h]] + 1;
        q.push(t);
      }
    }
  const edgeName = (e) => {
    const t = eTypes[edges[e + eType]];
    return t === 'element' || t === 'hidden' ? '#' : strings[edges[e + eName]];
  };
  /** the shortest strong path to the root, as `group.edge` hops from the node up */
  const path = (i, max) => {
    const out = [];
    for (let cur = i; out.length < max && dist[cur] > 0; ) {
      let best = -1;
      let be = -1;
      for (let r = count[cur]; r < count[cur + 1]; r++) {
        const f = from[r];
        if (dist[f] >= 0 && dist[f] < dist[cur] && (best < 0 || dist[f] < dist[best])) [best, be] = [f, via[r]];
      }
      if (best < 0) break;
      out.push(`${group(best)}.${edgeName(be)}`);
      cur = best;
    }
    return out;
  };
  const size = (i) => nodes[i * NF + iSize];
  const id = (i) => nodes[i * NF + iId];
  // immediate dominators over strong edges (Cooper, Harvey, Kennedy: iterated over the reverse postorder)
  const post = new Int32Array(N).fill(-1);
  const rpo = [];
  const it = new Uint32Array(N);
  const stack = [0];
  post[0] = -2;
  it[0] = first[0];
  while (stack.length > 0) {
    const v = stack[stack.length - 1];
    let next = -1;
    while (it[v] < first[v + 1] && next < 0) {
      const e = it[v];
      it[v] += EF;
      const t = edges[e + eTo] / NF;
      if (strong(e) && post[t] === -1) next = t;
    }
    if (next >= 0) {
      post[next] = -2;
      it[next] = first[next];
      stack.push(next);
    } else {
      stack.pop();
      post[v] = rpo.length;
      rpo.push(v);
    }
  }
  const idom = new Int32Array(N).fill(-1);
  idom[0] = 0;
  const meet = (a, b) => {
    while (a !== b) {
      while (post[a] < post[b]) a = idom[a];
      while (post[b] < post[a]) b = idom[b];
    }
    return a;
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (let k = rpo.length - 2; k >= 0; k--) {
      const v = rpo[k];
      let d = -1;
      for (let r = count[v]; r < count[v + 1]; r++) if (idom[from[r]] >= 0) d = d < 0 ? from[r] : meet(from[r], d);
      if (d !== idom[v]) {
        idom[v] = d;
        changed = true;
      }
    }
  }
  // retained size: a node's own and that of every node it dominates
  const retained = new Float64Array(N);
  for (const v of rpo) {
    retained[v] += size(v);
    if (v !== 0) retained[idom[v]] += retained[v];
  }
  /** a strong edge's name from `a` to `b` */
  const edgeTo = (a, b) => {
    for (let e = first[a]; e < first[a + 1]; e += EF) if (strong(e) && edges[e + eTo] / NF === b) return edgeName(e);
    return '?';
  };
  /** the node `name`'s edge of `i` leads to (-1: none) */
  const child = (i, re) => {
    for (let e = first[i]; e < first[i + 1]; e += EF)
      if (re.test(String(strings[edges[e + eName]])) && eTypes[edges[e + eType]] !== 'element') return edges[e + eTo] / NF;
    return -1;
  };
  /**
   * Each reachable node's owner by the dominator tree: the nearest dominating object of a named class
   * (`RetiredRows`), or a module's or closure's variable under it (`(root)|ctx.pool`): what would free it.
   */
  const owners = () => {
    const lab = new Array(N);
    for (let k = rpo.length - 1; k >= 0; k--) {
      const v = rpo[k];
      const d = idom[v];
      if (v === 0) lab[v] = '(root)';
      else if (type(v) === 'object' && !GENERIC.test(name(v))) lab[v] = name(v);
      else if (type(d) === 'object' && name(d) === 'system / Context') lab[v] = `${lab[d]}|ctx.${edgeTo(d, v).replace(/^\d+$/, '#')}`;
      else lab[v] = lab[d];
    }
    return lab;
  };
  /** the script of the function a closure runs (its path inside the repository or node_modules) */
  const scriptOf = (closure) => {
    const shared = child(closure, /^shared$/);
    const script = shared < 0 ? -1 : child(shared, /script/);
    if (script < 0) return '(no script)';
    const n = child(script, /^name$/);
    return String(n >= 0 ? name(n) : name(script))
      .replace(/^file:\/\//, '')
      .replace(/^.*\/node_modules\//, 'node_modules/')
      .replace(ROOT_DIR, '');
  };
  /** closures by the code object they run */
  const codeHolders = () => {
    const m = new Map();
    for (let i = 0; i < N; i++) {
      if (type(i) !== 'closure' || idom[i] < 0) continue;
      const c = child(i, /^code$/);
      if (c >= 0 && !m.has(c)) m.set(c, i);
    }
    return m;
  };
  return { N, type, name, group, size, id, dist, path, idom, retained, owners, scriptOf, codeHolders };
}

const [fa, fb] = process.argv.slice(2);
if (!fa || !fb) throw new Error('usage: heap-diff.mjs EARLIER.heapsnapshot LATER.heapsnapshot');
const A = load(fa);
const B = load(fb);
const kb = (n) => (n / 1e3).toFixed(1).padStart(9);
const PLAIN = /^(object:(Object|Array|Map|Set|Generator|system.*)|array:|hidden:|closure:|object shape:|code:|\(.*string\))/;
const skipOwner = (g) => /^(code|native|synthetic|hidden|object shape)/.test(g);

function sums(S, key) {
  const m = new Map();
  for (let i = 0; i < S.N; i++) {
    if (S.dist[i] < 0) continue;
    const k = key(S, i);
    if (k === null) continue;
    const v = m.get(k) ?? [0, 0];
    v[0]++;
    v[1] += S.size(i);
    m.set(k, v);
  }
  return m;
}
function printDiff(title, a, b, rows) {
  const keys = [...new Set([...a.keys(), ...b.keys()])].map((k) => {
    const [ca, sa] = a.get(k) ?? [0, 0];
    const [cb, sb] = b.get(k) ?? [0, 0];
    return { k, d: sb - sa, n: cb - ca, ca, cb };
  });
  keys.sort((x, y) => y.d - x.d);
  console.log(`\n== ${title}: growth KB, count change, count before -> after ==`);
  for (const r of keys.slice(0, rows)) console.log(`${kb(r.d)} ${String(r.n).padStart(7)}  ${r.ca} -> ${r.cb}  ${r.k.slice(0, 200)}`);
}

const total = (S) => [...sums(S, () => '').values()][0][1];
console.log(`reachable self size: ${(total(A) / 1e6).toFixed(3)} -> ${(total(B) / 1e6).toFixed(3)} MB`);
printDiff(
  'by node type and name',
  sums(A, (S, i) => S.group(i)),
  sums(B, (S, i) => S.group(i)),
  40,
);
const owner = (S, i) => {
  if (skipOwner(S.group(i))) return null;
  const named = S.path(i, 30).filter((x) => !PLAIN.test(x));
  return (
    named
      .slice(0, 2)
      .join(' <- ')
      .replace(/\.\[?\d+\]?/g, '.#') || '(unnamed)'
  );
};
printDiff('by owner (code and native nodes aside)', sums(A, owner), sums(B, owner), 40);

// V8's code and what hangs off it: code objects, deopt data, relocation info, source positions, feedback,
// the maps' dependent-code lists (WeakArrayList)
const isCode = (S, i) => S.type(i) === 'code' || (S.type(i) === 'hidden' && S.name(i) === 'system / WeakArrayList');
const kind = (S, i) =>
  isCode(S, i)
    ? "V8's code and its side data"
    : /string/.test(S.type(i))
      ? 'strings'
      : S.type(i) === 'native'
        ? 'native (array buffers' + "'" + ' stores …)'
        : 'objects, arrays, numbers, bigints, maps';
printDiff('by kind', sums(A, kind), sums(B, kind), 4);
const ownA = A.owners();
const ownB = B.owners();
printDiff(
  'by dominating owner (code aside): the nearest named class, or variable, whose going would free it',
  sums(A, (S, i) => (isCode(S, i) ? null : ownA[i])),
  sums(B, (S, i) => (isCode(S, i) ? null : ownB[i])),
  30,
);

// optimised code new in the later snapshot (with the deopt data, relocation info and source positions it
// dominates), by the script of the function that runs it: tier-up and re-optimisation, ours or a library's
const before = new Set();
for (let i = 0; i < A.N; i++) if (A.dist[i] >= 0) before.add(A.id(i));
{
  const holders = B.codeHolders();
  const byScript = new Map();
  const byFn = new Map();
  let total = 0;
  for (const [c, closure] of holders) {
    if (before.has(B.id(c)) || B.idom[c] < 0) continue;
    const r = B.retained[c];
    total += r;
    const script = B.scriptOf(closure);
    const top = script.startsWith('node_modules/')
      ? script
          .split('/')
          .slice(0, script.startsWith('node_modules/@') ? 3 : 2)
          .join('/')
      : script.startsWith('node:')
        ? script.split('/')[0]
        : script.split('/').slice(0, 2).join('/');
    byScript.set(top, (byScript.get(top) ?? 0) + r);
    const fn = `${B.name(closure) || '(anonymous)'} ${script}`;
    byFn.set(fn, (byFn.get(fn) ?? 0) + r);
  }
  // and the code of the earlier snapshot gone from the later one (discarded: a deopt, a broken dependency, a GC)
  const after = new Set();
  for (let i = 0; i < B.N; i++) if (B.idom[i] >= 0) after.add(B.id(i));
  let gone = 0;
  for (const [c] of A.codeHolders()) if (!after.has(A.id(c))) gone += A.retained[c];
  console.log(
    `\n== code run by a function, new in the later snapshot: ${kb(total).trim()} KB (and ${kb(gone).trim()} KB of the earlier one's gone), by script ==`,
  );
  for (const [k, v] of [...byScript].sort((x, y) => y[1] - x[1]).slice(0, 15)) console.log(`${kb(v)}  ${k}`);
  console.log('-- by function');
  for (const [k, v] of [...byFn].sort((x, y) => y[1] - x[1]).slice(0, 15)) console.log(`${kb(v)}  ${k.slice(0, 160)}`);
}

const fresh = new Map();
for (let i = 0; i < B.N; i++) {
  if (B.dist[i] < 0 || before.has(B.id(i)) || B.group(i).startsWith('native')) continue;
  const v = fresh.get(B.group(i)) ?? [0, 0, []];
  v[0]++;
  v[1] += B.size(i);
  if (v[2].length < 2) v[2].push(i);
  fresh.set(B.group(i), v);
}
console.log('\n== new in the later snapshot, largest groups, with retainer paths ==');
for (const [g, [n, s, sample]] of [...fresh].sort((x, y) => y[1][1] - x[1][1]).slice(0, 12)) {
  console.log(`${kb(s)} ${String(n).padStart(7)}  ${g}`);
  for (const i of sample) console.log(`      ${B.path(i, 12).join(' <- ').slice(0, 400)}`);
}
