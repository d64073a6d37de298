/**
 * Shared generators for the fuzz tests: a "junk" value arbitrary (wrong types, huge / negative /
 * fractional numbers, number-like strings, empty and giant strings, nested containers) and a seeded
 * mutator that damages a valid JSON value in place of a few nodes (replace, delete, wrap, swap type).
 */
import fc from 'fast-check';
import { mulberry32 } from '../../src/sim/rng.ts';

export const JUNK_CONSTANTS: readonly unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1,
  1.5,
  -0.000001,
  1e308,
  -1e308,
  2 ** 53 + 1,
  Number.MAX_SAFE_INTEGER,
  1e21,
  '',
  ' ',
  '0',
  '-1',
  '1e400',
  '-5',
  'NaN',
  'Infinity',
  '0x',
  '0x' + 'zz'.repeat(32),
  '9'.repeat(90),
  '1.2.3',
  '0.0000001',
  '__proto__',
  'constructor',
  [],
  {},
  [[]],
  { a: {} },
  [null],
  'x'.repeat(10_000),
];

export const junk: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...JUNK_CONSTANTS) },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

/** A tiny deterministic PRNG (mulberry32) so a mutation is reproducible from its seed. */
export const prng = mulberry32;

type Json = unknown;

/** Every container node of a value with its keys, for picking a place to damage. */
function containers(v: Json, out: { node: Record<string, unknown> | unknown[]; key: string | number }[] = []): typeof out {
  if (Array.isArray(v)) {
    v.forEach((x, i) => {
      out.push({ node: v, key: i });
      containers(x, out);
    });
  } else if (v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      out.push({ node: v as Record<string, unknown>, key: k });
      containers(x, out);
    }
  }
  return out;
}

/** A deep copy of `value` with `count` (≥ 1) seeded mutations applied; 0 returns a plain copy. */
export function mutateJson(value: Json, seed: number, count: number): Json {
  const copy = value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as Json);
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  // fresh copies of junk containers, so a later mutation can never make a cycle through a shared constant
  const junkValue = (): unknown => structuredClone(pick(JUNK_CONSTANTS));
  let root = copy;
  for (let i = 0; i < count; i++) {
    const places = containers(root);
    if (places.length === 0 || rnd() < 0.03) {
      root = junkValue();
      continue;
    }
    const { node, key } = pick(places);
    const op = rnd();
    const cur = (node as Record<string | number, unknown>)[key];
    if (op < 0.2) {
      if (Array.isArray(node)) node.splice(key as number, 1);
      else delete (node as Record<string, unknown>)[key as string];
    } else if (op < 0.3) (node as Record<string | number, unknown>)[key] = [cur];
    else if (op < 0.4)
      (node as Record<string | number, unknown>)[key] =
        typeof cur === 'number' ? String(cur) : typeof cur === 'string' && cur !== '' && Number.isFinite(Number(cur)) ? Number(cur) : null;
    else if (op < 0.5 && typeof cur === 'number') (node as Record<string | number, unknown>)[key] = pick([-cur, cur * 1e12, cur + 0.5, -1, 1e300]);
    else (node as Record<string | number, unknown>)[key] = junkValue();
  }
  return root;
}
