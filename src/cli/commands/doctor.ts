/**
 * `bookmaker doctor -c FILE [--base-url URL] [--json]`: the preflight of a live start (src/doctor).
 * Every check prints ok, warn or fail with what it found and the fix; nothing is ordered and the
 * start-up migration's writes are not made. Exit 0 when no check fails, 1 when one does, 2 for a
 * config or flag error. `--json` prints `{checks: [{name, result, detail, fix}]}`.
 * Time budget: --timeout per check (default 5 s, also each HTTP attempt's timeout, no retries) and
 * --total-timeout for the run (default 20 s); what could not be checked in time is reported as such.
 * Secrets are never printed: every line goes through the logger's scrubber.
 */
import type { CommandSpec, ParsedArgs } from '../args.ts';
import { loadConfig } from '../../config/load-config.ts';
import { shardFromEnv } from '../../config/env-overrides.ts';
import { parseShardText } from '../../config/parse-markets.ts';
import { scrubSecrets } from '../../core/logger.ts';
import { BadInputError } from '../../model/errors.ts';
import { withShard } from '../../selection/shard.ts';
import type { CheckResult } from '../../doctor/check.ts';
import { DEFAULT_CHECK_MS, DEFAULT_TOTAL_MS, runDoctor } from '../../doctor/run-doctor.ts';
import { metricsPortFlag, requireConfig } from '../shared-flags.ts';

const command: CommandSpec = {
  name: 'doctor',
  summary: 'check everything a live start depends on (keys, wallet, permissions, collateral, migration, clock, markets, ports, ledger, limits) without trading',
  usage: 'bookmaker doctor -c FILE [--base-url URL] [--json] [--api-key K] [--key-file F] [--metrics-port P] [--shard I/N] [--timeout S] [--total-timeout S]',
  description:
    'Runs every preflight check of a first live start and prints each as ok, warn or fail, with what it found and the fix. ' +
    "It places no order and makes none of the start-up migration's writes (the permission check sends a signed cancel of a random, unused nonce). " +
    'Keys are loaded as `bookmaker run` loads them and never printed. Each venue check has --timeout (default 5 s) and the whole run --total-timeout (default 20 s): ' +
    'a venue that answers slowly or not at all is reported, with what could not be checked. Exit codes: 0 nothing failed, 1 a check failed, 2 config or flags.',
  options: {
    config: { type: 'string', short: 'c', description: 'YAML config file (the one `bookmaker run` will use)', arg: 'FILE' },
    'base-url': { type: 'string', description: 'venue API base (overrides the config, as for run)', arg: 'URL' },
    json: { type: 'boolean', description: 'print {checks: [{name, result, detail, fix}]} as JSON', default: false },
    'api-key': { type: 'string', description: 'venue API key (default BOOKMAKER_API_KEY, then wallet.apiKeyFile)', arg: 'KEY' },
    'key-file': { type: 'string', description: 'file holding the private key (default BOOKMAKER_PRIVATE_KEY)', arg: 'FILE' },
    'metrics-port': { type: 'number', description: 'the metrics port run will use (default from the config)', arg: 'PORT' },
    shard: { type: 'string', description: 'check the markets of shard I of N, as `run --shard`', arg: 'I/N' },
    timeout: { type: 'number', description: 'seconds each venue check may take', default: DEFAULT_CHECK_MS / 1000, arg: 'S' },
    'total-timeout': { type: 'number', description: 'seconds the whole run may take', default: DEFAULT_TOTAL_MS / 1000, arg: 'S' },
  },
  run,
};
export default command;

const MARK: Record<CheckResult['result'], string> = { ok: 'ok  ', warn: 'WARN', fail: 'FAIL' };

/**
 * The human report: one line per check, its fix below when it is not ok, and a verdict. Consecutive
 * checks not run for one reason share a line (`--json` lists each).
 */
export function formatDoctor(checks: readonly CheckResult[]): string {
  const w = Math.max(...checks.map((c) => c.name.length));
  const lines: string[] = [];
  for (let i = 0; i < checks.length; i++) {
    const c = checks[i]!;
    const same: string[] = [c.name];
    while (
      c.detail.startsWith('not checked') &&
      i + 1 < checks.length &&
      checks[i + 1]!.detail === c.detail &&
      checks[i + 1]!.fix === c.fix &&
      checks[i + 1]!.result === c.result
    )
      same.push(checks[++i]!.name);
    if (same.length > 1) lines.push(`${MARK[c.result]}  ${same.join(', ')}`, `${''.padEnd(6 + w)}  ${c.detail}`);
    else lines.push(`${MARK[c.result]}  ${c.name.padEnd(w)}  ${c.detail}`);
    if (c.result !== 'ok' && c.fix) lines.push(`${''.padEnd(6 + w)}  fix: ${c.fix}`);
  }
  const n = (r: CheckResult['result']): number => checks.filter((c) => c.result === r).length;
  const failed = n('fail');
  lines.push('', `doctor: ${n('ok')} ok, ${n('warn')} warn, ${failed} fail: ${failed ? 'NOT ready to go live (exit 1)' : 'ready (exit 0)'}`);
  return lines.join('\n') + '\n';
}

async function run(args: ParsedArgs): Promise<number> {
  const o = args.options;
  const file = requireConfig(o, '-c config/testnet.yaml');
  const metricsPort = metricsPortFlag(o);
  const checkS = o.timeout as number;
  const totalS = o['total-timeout'] as number;
  if (!(checkS > 0 && checkS <= 600)) throw new BadInputError('--timeout', 'seconds above 0, at most 600', checkS);
  if (!(totalS >= checkS && totalS <= 3600)) throw new BadInputError('--total-timeout', 'seconds at least --timeout, at most 3600', totalS);
  const shardFlag = o.shard === undefined ? undefined : parseShardText(o.shard, '--shard');
  const loaded = await loadConfig(file, { env: process.env });
  const shard = shardFlag ?? shardFromEnv(process.env);
  const config = shard ? withShard(loaded, shard) : loaded;
  const report = await runDoctor({
    config,
    env: process.env,
    checkMs: checkS * 1000,
    totalMs: totalS * 1000,
    ...(o['base-url'] ? { baseUrl: o['base-url'] as string } : {}),
    ...(o['api-key'] ? { apiKey: o['api-key'] as string } : {}),
    ...(o['key-file'] ? { keyFile: o['key-file'] as string } : {}),
    ...(metricsPort !== undefined ? { metricsPort } : {}),
  });
  const text = o.json ? JSON.stringify({ checks: report.checks }, null, 2) + '\n' : formatDoctor(report.checks);
  process.stdout.write(scrubSecrets(text));
  // a socket to a stalled venue must not keep the process past its budget
  setTimeout(() => process.exit(report.exitCode), 1_000).unref();
  return report.exitCode;
}
