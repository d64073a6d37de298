/**
 * The table of docs/edge.md, "Where the strategies stand today": strategies × flows × guard, from the
 * edge bench's own output. test/bench/edge.bench.ts writes one `edge: run {json}` line a run to
 * stderr (flow, seed, strategy|guard, PnL, volume, and the run's size and settings); this reads the
 * stderr files of one or more invocations (disjoint seeds, or flows, pooled), and writes the markdown
 * table: per strategy and flow, the mean PnL per run with its 95 % interval guard off and on, the
 * volume, the guard's cut (toxic) or cost (benign), and a verdict against each goal.
 *
 *   node --import tsx scripts/edge-table.ts FILE... [--commit SHA] [--date YYYY-MM-DD] [--write docs/edge.md]
 *
 * With --write, the text between the page's `<!-- edge-table begin -->` and `<!-- edge-table end -->`
 * lines is replaced; without it the table goes to stdout. The mean and interval are the bench's
 * (src/backtest/mean-ci.ts), the guard's cut and cost `guardGoal` below, which the bench prints too.
 * Runs that differ in size or settings are refused; a seed that misses a strategy or guard setting
 * another seed of its flow has (a run cut short) is left out of that flow, and the table says so.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { formatMeanCi, meanCi, type MeanCi } from '../src/backtest/mean-ci.ts';

export const FLOWS = ['calibrated', 'toxic', 'benign'] as const;
export type Flow = (typeof FLOWS)[number];

/** One `edge: run` line of the bench. */
export interface EdgeRun {
  flow: Flow;
  seed: number;
  /** `strategy|plain` (guard off) or `strategy|guard` (on) */
  key: string;
  pnl: number;
  volume: number;
  fills: number;
  mk10: number | null;
  hours: number;
  markets: number;
  loop: string;
  extra?: string;
  extraFor?: string;
  gate?: string;
  guardBlock?: string;
  agents?: unknown;
}

const RUN_LINE = /^edge: run (\{.*\})\s*$/;
const SETUP_KEYS = ['hours', 'markets', 'loop', 'extra', 'extraFor', 'gate', 'guardBlock', 'agents'] as const;

/** The run lines of a bench's stderr (other lines ignored); a line without its size and settings is an error. */
export function parseRuns(text: string, source = 'input'): EdgeRun[] {
  const runs: EdgeRun[] = [];
  text.split('\n').forEach((line, i) => {
    const m = RUN_LINE.exec(line);
    if (!m) return;
    const r = JSON.parse(m[1]!) as EdgeRun;
    if (!FLOWS.includes(r.flow)) throw new Error(`${source}:${i + 1}: unknown flow ${JSON.stringify(r.flow)}`);
    if (typeof r.hours !== 'number' || typeof r.markets !== 'number') {
      throw new Error(`${source}:${i + 1}: a run line without its size (hours, markets): from a bench before its run lines carried them`);
    }
    if (!/^[\w-]+\|(plain|guard)$/.test(r.key) || !Number.isFinite(r.pnl) || !Number.isFinite(r.volume)) {
      throw new Error(`${source}:${i + 1}: not a run line the bench writes: ${line.slice(0, 120)}`);
    }
    runs.push(r);
  });
  return runs;
}

/** The guard's effect on one flow from the mean PnL guard off and on: the bench's goals (cut ≥ 50 % on toxic, cost ≤ 10 % on benign). */
export interface GuardGoal {
  kind: 'cut' | 'cost';
  /** percent of the loss cut (toxic) or of the profit lost (benign); null when there is no loss to cut / profit to cost */
  percent: number | null;
  met: boolean | null;
}
export function guardGoal(flow: 'toxic' | 'benign', off: number, on: number): GuardGoal {
  if (flow === 'toxic')
    return off < 0 ? { kind: 'cut', percent: ((on - off) / -off) * 100, met: on - off >= -off / 2 } : { kind: 'cut', percent: null, met: null };
  return off > 0 ? { kind: 'cost', percent: ((off - on) / off) * 100, met: off - on <= off / 10 } : { kind: 'cost', percent: null, met: null };
}

interface Cell {
  pnl: MeanCi;
  volume: number;
  /** per seed, for the paired guard difference */
  bySeed: Map<number, number>;
}

export interface EdgeTable {
  markdown: string;
  /** per flow, the seeds pooled (complete ones) and those left out */
  seeds: Record<string, { used: number[]; dropped: number[] }>;
  goals: { calibrated: string | null; toxic: string | null; benign: string | null };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const ranges = (seeds: number[]): string => {
  const out: string[] = [];
  for (let i = 0; i < seeds.length; ) {
    let j = i;
    while (j + 1 < seeds.length && seeds[j + 1] === seeds[j]! + 1) j++;
    out.push(i === j ? `${seeds[i]}` : `${seeds[i]}–${seeds[j]}`);
    i = j + 1;
  }
  return out.join(', ');
};
const signed = (c: MeanCi) => formatMeanCi(c).replace(/(^|\[|, )(?=\d)/g, '$1+');

/** The table and goal lines from the runs of one or more bench invocations. */
export function edgeTable(all: EdgeRun[], o: { commit?: string; date?: string } = {}): EdgeTable {
  if (all.length === 0) throw new Error('no `edge: run` lines: give the stderr files of `npm run bench -- edge`');
  const setupOf = (r: EdgeRun) => JSON.stringify(SETUP_KEYS.map((k) => r[k] ?? null));
  const setup = setupOf(all[0]!);
  for (const r of all) {
    if (setupOf(r) !== setup) throw new Error(`runs of different sizes or settings cannot be pooled: ${setup} and ${setupOf(r)} (${r.flow} seed ${r.seed})`);
  }
  // one run per (flow, seed, key): a repeat must be the same run (the bench is deterministic per seed)
  const byId = new Map<string, EdgeRun>();
  for (const r of all) {
    const id = `${r.flow}|${r.seed}|${r.key}`;
    const was = byId.get(id);
    if (was && (was.pnl !== r.pnl || was.volume !== r.volume))
      throw new Error(`${r.flow} seed ${r.seed} ${r.key} twice with different results: not the same code`);
    byId.set(id, r);
  }
  const runs = [...byId.values()];
  const strategies = [...new Set(runs.map((r) => r.key.split('|')[0]!))];
  const flows = FLOWS.filter((f) => runs.some((r) => r.flow === f));
  const seeds: EdgeTable['seeds'] = {};
  const cells = new Map<string, Cell>();
  for (const flow of flows) {
    const fr = runs.filter((r) => r.flow === flow);
    const keys = new Set(fr.map((r) => r.key));
    const all = [...new Set(fr.map((r) => r.seed))].sort((a, b) => a - b);
    const used = all.filter((s) => [...keys].every((k) => byId.has(`${flow}|${s}|${k}`)));
    seeds[flow] = { used, dropped: all.filter((s) => !used.includes(s)) };
    for (const k of keys) {
      const rs = used.map((s) => byId.get(`${flow}|${s}|${k}`)!);
      cells.set(`${flow}|${k}`, { pnl: meanCi(rs.map((r) => r.pnl)), volume: mean(rs.map((r) => r.volume)), bySeed: new Map(rs.map((r) => [r.seed, r.pnl])) });
    }
  }

  // as the bench prints them: the mean and interval, the volume, and the mean PnL as a share of the mean volume
  const pnlCell = (c: Cell | undefined) =>
    c ? `${formatMeanCi(c.pnl)} on ${c.volume.toFixed(0)} (${c.volume > 0 ? ((c.pnl.mean / c.volume) * 100).toFixed(1) : '–'} %)` : '–';
  const calVerdict = (s: string): string => {
    const got = (['plain', 'guard'] as const).map((g) => [g, cells.get(`calibrated|${s}|${g}`)] as const).filter(([, c]) => c);
    if (got.length === 0) return '–';
    const above = got.filter(([, c]) => c!.pnl.lo !== null && c!.pnl.lo > 0).map(([g]) => (g === 'guard' ? 'on' : 'off'));
    if (above.length) return `**met** (guard ${above.join(', ')})`;
    if (got.every(([, c]) => c!.pnl.hi !== null && c!.pnl.hi < 0)) return 'not met: loses (interval below 0)';
    return 'not met: interval spans 0';
  };
  const guardCell = (flow: 'toxic' | 'benign', s: string): string => {
    const off = cells.get(`${flow}|${s}|plain`);
    const on = cells.get(`${flow}|${s}|guard`);
    if (!off || !on) return '–';
    const g = guardGoal(flow, off.pnl.mean, on.pnl.mean);
    const diff = meanCi([...on.bySeed].map(([seed, pnl]) => pnl - off.bySeed.get(seed)!));
    const paired = `on − off ${signed(diff)}`;
    if (g.percent === null) return `${flow === 'toxic' ? 'no loss to cut' : 'no profit to cost'} (${paired})`;
    const pct = flow === 'toxic' ? g.percent.toFixed(0) : g.percent.toFixed(1);
    return `${pct} %: ${g.met ? '**met**' : 'not met'} (${paired})`;
  };

  const head = ['strategy'];
  const rule = ['---'];
  for (const flow of flows) {
    head.push(
      `${flow}, guard off`,
      `${flow}, guard on`,
      flow === 'calibrated' ? 'calibrated: interval above 0' : flow === 'toxic' ? "toxic: guard's cut ≥ 50 %" : "benign: guard's cost ≤ 10 %",
    );
    rule.push('---', '---', '---');
  }
  const lines = [`| ${head.join(' | ')} |`, `|${rule.join('|')}|`];
  for (const s of strategies) {
    const row = [`\`${s}\``];
    for (const flow of flows) {
      row.push(pnlCell(cells.get(`${flow}|${s}|plain`)), pnlCell(cells.get(`${flow}|${s}|guard`)));
      row.push(flow === 'calibrated' ? calVerdict(s) : cells.has(`${flow}|${s}|guard`) ? guardCell(flow, s) : 'no guard');
    }
    lines.push(`| ${row.join(' | ')} |`);
  }

  // the goals, as the bench states them
  const goals: EdgeTable['goals'] = { calibrated: null, toxic: null, benign: null };
  if (flows.includes('calibrated')) {
    let best: { s: string; c: Cell } | null = null;
    for (const [k, c] of cells) if (k.startsWith('calibrated|') && (!best || c.pnl.mean > best.c.pnl.mean)) best = { s: k.slice('calibrated|'.length), c };
    const [s, g] = best!.s.split('|');
    const met = best!.c.pnl.lo !== null && best!.c.pnl.lo > 0;
    goals.calibrated = `calibrated: the best mean is ${s} (guard ${g === 'guard' ? 'on' : 'off'}), ${formatMeanCi(best!.c.pnl)} USDC a run: ${met ? '**met**' : '**not met**'} (goal: an interval above 0)`;
  }
  for (const flow of ['toxic', 'benign'] as const) {
    if (!flows.includes(flow)) continue;
    const guarded = strategies.filter((s) => cells.has(`${flow}|${s}|plain`) && cells.has(`${flow}|${s}|guard`));
    const metBy = guarded.filter((s) => guardGoal(flow, cells.get(`${flow}|${s}|plain`)!.pnl.mean, cells.get(`${flow}|${s}|guard`)!.pnl.mean).met);
    goals[flow] =
      `${flow}: the guard's ${flow === 'toxic' ? 'cut ≥ 50 %' : 'cost ≤ 10 %'} is met for ${metBy.length} of ${guarded.length} strategies with a guard${metBy.length ? ` (${metBy.join(', ')})` : ''}`;
  }

  const [hours, markets, loop] = [all[0]!.hours, all[0]!.markets, all[0]!.loop];
  const settings = SETUP_KEYS.slice(3)
    .filter((k) => all[0]![k] !== undefined)
    .map((k) => `${k} ${JSON.stringify(all[0]![k])}`);
  const sizes = flows.map((f) => `${f} ${seeds[f]!.used.length} seeds (${ranges(seeds[f]!.used)})`).join(', ');
  const dropped = flows
    .filter((f) => seeds[f]!.dropped.length)
    .map(
      (f) =>
        `${f} ${seeds[f]!.dropped.length === 1 ? 'seed' : 'seeds'} ${ranges(seeds[f]!.dropped)} left out (cut short: not every strategy and guard setting ran)`,
    );
  const markdown = [
    `Measured${o.commit ? ` on commit \`${o.commit}\`` : ''}${o.date ? `, ${o.date}` : ''}: ${sizes}, each run ${hours} h × ${markets} markets, ${loop} loop${settings.length ? `, ${settings.join(', ')}` : ''}.` +
      `${dropped.length ? ` ${dropped.join('; ')}.` : ''} A cell is the mean PnL of a run in USDC with its 95 % interval over the seeds, ` +
      'net of fees, "on" the mean volume of a run in USDC (and the mean PnL as a percentage of it); the guard\'s cut and cost compare the means, and "on − off" is the mean of the paired per-seed differences with its interval.',
    '',
    ...lines,
    '',
    ...Object.values(goals)
      .filter((g): g is string => g !== null)
      .map((g) => `- ${g}`),
  ].join('\n');
  return { markdown, seeds, goals };
}

export const BEGIN = '<!-- edge-table begin -->';
export const END = '<!-- edge-table end -->';

/** `doc` with the text between its BEGIN and END lines replaced by `table`. */
export function replaceTable(doc: string, table: string): string {
  const b = doc.indexOf(BEGIN);
  const e = doc.indexOf(END);
  if (b < 0 || e < b) throw new Error(`the page has no ${BEGIN} … ${END} lines to replace`);
  return `${doc.slice(0, b + BEGIN.length)}\n${table}\n${doc.slice(e)}`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const opt = (k: string): string | undefined => {
    const i = args.indexOf(k);
    if (i < 0) return undefined;
    const v = args[i + 1];
    if (v === undefined) throw new Error(`${k} needs a value`);
    args.splice(i, 2);
    return v;
  };
  const commit = opt('--commit');
  const date = opt('--date');
  const write = opt('--write');
  const usage = 'usage: node --import tsx scripts/edge-table.ts FILE... [--commit SHA] [--date YYYY-MM-DD] [--write docs/edge.md]\n';
  const unknown = args.filter((a) => a.startsWith('--'));
  if (args.length === 0 || unknown.length > 0) {
    process.stderr.write(unknown.length > 0 && !unknown.includes('--help') ? `edge-table: unknown flag ${unknown.join(', ')}\n${usage}` : usage);
    process.exit(unknown.includes('--help') ? 0 : 2);
  }
  const missing = args.filter((f) => !existsSync(f));
  if (missing.length > 0) {
    process.stderr.write(`edge-table: no such file: ${missing.join(', ')}\n`);
    process.exit(2);
  }
  const t = edgeTable(
    args.flatMap((f) => parseRuns(readFileSync(f, 'utf8'), f)),
    { ...(commit ? { commit } : {}), ...(date ? { date } : {}) },
  );
  if (write) writeFileSync(write, replaceTable(readFileSync(write, 'utf8'), t.markdown));
  else process.stdout.write(`${t.markdown}\n`);
}
