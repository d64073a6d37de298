/**
 * V8's hidden classes (maps) for the shape tests: `%HaveSameMap` with natives syntax switched on for this one
 * function (docs/performance/reoptimisation.md).
 */
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--allow-natives-syntax');
export const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b);') as (a: object, b: object) => boolean;

/** how many distinct maps the objects have */
export function distinctMaps(objs: object[]): number {
  const reps: object[] = [];
  for (const o of objs) if (!reps.some((r) => haveSameMap(r, o))) reps.push(o);
  return reps.length;
}
