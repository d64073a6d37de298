/**
 * A reader of this repository's Dockerfile for the tests that check it without a Docker engine: stages,
 * their instructions (continuation lines joined, comments dropped), ENV values, and the JSON-form
 * ENTRYPOINT, CMD and HEALTHCHECK.
 */
import { readFileSync } from 'node:fs';

export interface Instruction {
  readonly op: string;
  readonly args: string;
}

export interface Stage {
  readonly name: string;
  readonly base: string;
  readonly steps: readonly Instruction[];
}

export function parseDockerfile(text: string): Stage[] {
  const lines: string[] = [];
  let cur = '';
  for (const raw of text.split('\n')) {
    if (/^\s*#/.test(raw)) continue;
    const line = raw.replace(/\s+$/, '');
    if (line.endsWith('\\')) cur += line.slice(0, -1) + ' ';
    else {
      cur += line;
      if (cur.trim()) lines.push(cur.trim());
      cur = '';
    }
  }
  const stages: { name: string; base: string; steps: Instruction[] }[] = [];
  for (const l of lines) {
    const m = /^([A-Z]+)\s+([\s\S]*)$/.exec(l);
    if (!m) throw new Error(`Dockerfile: cannot read "${l}"`);
    const [, op, args] = m as unknown as [string, string, string];
    if (op === 'FROM') {
      const f = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      if (!f) throw new Error(`Dockerfile: FROM ${args}`);
      stages.push({ base: f[1]!, name: f[2] ?? String(stages.length), steps: [] });
    } else {
      const s = stages.at(-1);
      if (!s) throw new Error(`Dockerfile: ${op} before FROM`);
      s.steps.push({ op, args: args.replace(/\s+/g, ' ').trim() });
    }
  }
  return stages;
}

export function readDockerfile(path: string): Stage[] {
  return parseDockerfile(readFileSync(path, 'utf8'));
}

/** ENV pairs of a stage (KEY=value or KEY="value with spaces"). */
export function envOf(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const s of stage.steps.filter((x) => x.op === 'ENV')) {
    for (const m of s.args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=(?:"([^"]*)"|(\S*))/g)) env[m[1]!] = m[2] ?? m[3] ?? '';
  }
  return env;
}

/** The JSON (exec) form of an instruction's arguments, e.g. ENTRYPOINT ["node", "bin/bookmaker.js"]. */
export function execForm(stage: Stage, op: 'ENTRYPOINT' | 'CMD'): string[] {
  const s = stage.steps.filter((x) => x.op === op).at(-1);
  if (!s) throw new Error(`Dockerfile: no ${op} in stage ${stage.name}`);
  return JSON.parse(s.args) as string[];
}

/** HEALTHCHECK [--flag=value ...] CMD ["..."] → its flags and command. */
export function healthcheck(stage: Stage): { flags: Record<string, string>; cmd: string[] } {
  const s = stage.steps.find((x) => x.op === 'HEALTHCHECK');
  if (!s) throw new Error(`Dockerfile: no HEALTHCHECK in stage ${stage.name}`);
  const m = /^((?:--[a-z-]+=\S+\s+)*)CMD\s+(\[.*\])$/.exec(s.args);
  if (!m) throw new Error(`Dockerfile: HEALTHCHECK must use the exec form: ${s.args}`);
  const flags: Record<string, string> = {};
  for (const f of m[1]!.trim().split(/\s+/).filter(Boolean)) {
    const [k, v] = f.slice(2).split('=') as [string, string];
    flags[k] = v;
  }
  return { flags, cmd: JSON.parse(m[2]!) as string[] };
}

/** BOOKMAKER_HEAP_LIMITS "run=128 import=2048" → { run: 128, import: 2048 }. */
export function heapLimits(spec: string): Record<string, number> {
  return Object.fromEntries(
    spec
      .split(/[\s,]+/)
      .filter(Boolean)
      .map((p) => p.split('=') as [string, string])
      .map(([k, v]) => [k, Number(v)]),
  );
}
