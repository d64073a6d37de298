/**
 * heap-diff: what grew between two heap snapshots of one process (docs/performance/soak-growth.md).
 *
 *   node --max-old-space-size=4096 scripts/heap-diff.mjs EARLIER.heapsnapshot LATER.heapsnapshot
 *
 * Take the snapshots with `--heapsnapshot-signal=SIGUSR2` on the process (each follows a full GC). Printed:
 * reachable self size of each; self size and count by node type and name, growth first; the same summed by
 * owner (the first two named classes on the shortest strong path to the GC roots, e.g. `MarketBook.folded <-
 * Account.books`), code and native nodes aside; and the retainer paths of a few objects new in the later
 * snapshot (V8's node ids are stable across one process's snapshots; native nodes get new ids each time).
 */
import { readFileSync } from 'node:fs';

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
  return { N, type, group, size, id, dist, path };
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

const before = new Set();
for (let i = 0; i < A.N; i++) if (A.dist[i] >= 0) before.add(A.id(i));
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
