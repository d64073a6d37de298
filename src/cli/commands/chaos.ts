/**
 * `bookmaker chaos`: the chaos soak (src/chaos/run-chaos.ts). Runs the real bot as a child process
 * against the local exchange under injected faults, checks the invariants continuously, prints the
 * table and optionally writes it as JSON. Exit 0 only with zero violations (1 otherwise).
 */
import { mkdtempSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandSpec, ParsedArgs } from '../args.ts';
import { BadInputError } from '../../model/errors.ts';
import { FAULT_PROFILE_NAMES } from '../../sim/faults.ts';
import { faultProfileFlag, faultProfileHelp } from './fault-profile-flag.ts';
import { chaosReportJson, formatChaosReport } from '../../chaos/chaos-report.ts';
import { runChaos } from '../../chaos/run-chaos.ts';

const command: CommandSpec = {
  name: 'chaos',
  summary: 'run the bot against the local exchange under injected faults and check invariants',
  usage: 'bookmaker chaos [--duration 10m] [--profile heavy] [--json out.json] [--seed N]',
  description:
    'Faults: 5xx, 429 bursts, 0–500 ms latency, slow bodies, stream drops, silent stalls, duplicated and reordered stream events, ' +
    'an exchange restart (state kept) and a kill -9 of the bot followed by a restart. Invariants: position and notional limits at worst case, ' +
    "the bot's view equals the venue's after every reconcile, no nonce reused, no slot quoted twice, quotes pulled during stalls, no crash, " +
    'nothing left open after the stop, every order adopted or cancelled after the restart. Exit 0 only with zero violations.\n' +
    faultProfileHelp(),
  options: {
    duration: { type: 'duration', short: 'd', description: 'how long to run: seconds, or with a unit (30s, 10m, 1h)', default: 600, arg: 'D' },
    profile: { type: 'string', description: `fault profile: ${FAULT_PROFILE_NAMES.join('|')}`, default: 'heavy', arg: 'NAME' },
    json: { type: 'string', description: 'also write the report as JSON to FILE', arg: 'FILE' },
    seed: { type: 'number', description: 'seed of the exchange, its counterparties and the keys', default: 1, arg: 'N' },
    markets: { type: 'number', description: 'markets on the local exchange', default: 4, arg: 'N' },
    'work-dir': { type: 'string', description: 'where the bot config and logs go (default: a new temp dir)', arg: 'DIR' },
    quiet: { type: 'boolean', short: 'q', description: 'no progress lines', default: false },
  },
  run,
};
export default command;

async function run(args: ParsedArgs): Promise<number> {
  const o = args.options;
  const seconds = o.duration as number;
  const seed = o.seed as number;
  if (!Number.isSafeInteger(seed) || seed < 0) throw new BadInputError('--seed', 'a non-negative integer', seed);
  const markets = o.markets as number;
  // the local exchange's demo market list has eight entries
  if (!Number.isInteger(markets) || markets < 1 || markets > 8) throw new BadInputError('--markets', 'an integer from 1 to 8', markets);
  if (seconds < 10) throw new BadInputError('--duration', 'at least 10 s (the schedule needs room for a restart and a kill)', seconds);
  const profile = faultProfileFlag('--profile', o.profile as string, 'chaos');
  const workDir = (o['work-dir'] as string | undefined) ?? mkdtempSync(join(tmpdir(), 'bookmaker-chaos-'));
  const quiet = o.quiet === true;
  const report = await runChaos({
    durationMs: seconds * 1000,
    profile,
    seed,
    markets,
    workDir,
    ...(quiet ? {} : { progress: (l: string) => process.stderr.write(`chaos: ${l}\n`) }),
  });
  process.stdout.write(formatChaosReport(report));
  if (!quiet) process.stderr.write(`chaos: bot logs in ${workDir}\n`);
  if (o.json) await writeFile(o.json as string, chaosReportJson(report));
  return report.totalViolations === 0 ? 0 : 1;
}
