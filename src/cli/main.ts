/**
 * `bookmaker` CLI dispatcher. Each command lives in ./commands/<name>.ts and exports a default
 * CommandSpec; commands are imported lazily so `bookmaker --help` stays fast.
 */
// first: `run` handles SIGHUP and SIGTERM from the first millisecond
import './early-signals.ts';
import { formatHelp, parseArgs, type CommandSpec } from './args.ts';
import { BookmakerError, commandExitCode } from '../model/errors.ts';
import { scrubSecrets } from '../core/logger.ts';
import { guardProcessOutput, type OutputFailures } from '../runtime/output-guard.ts';

export const COMMANDS: Record<string, { summary: string; load: () => Promise<{ default: CommandSpec }> }> = {
  run: { summary: 'run the quoting bot (live venue, testnet, a base URL, or the embedded local exchange)', load: () => import('./commands/run.ts') },
  sim: { summary: 'start the local exchange (HTTP + SSE) on a port', load: () => import('./commands/sim.ts') },
  record: { summary: 'record market data feeds to compressed JSONL', load: () => import('./commands/record.ts') },
  import: { summary: 'convert public data sets (polymarket, kalshi, binance) to the recording format', load: () => import('./commands/import.ts') },
  backtest: { summary: 'replay a recording through strategies, risk and the order manager', load: () => import('./commands/backtest.ts') },
  calibrate: { summary: 'fit the GLFT fill intensity (A, k) to a recording', load: () => import('./commands/calibrate.ts') },
  sweep: { summary: 'merge the shards of a parameter sweep run on several machines (sweep merge PARTS…)', load: () => import('./commands/sweep.ts') },
  markets: { summary: 'list, search, show or rank markets', load: () => import('./commands/markets.ts') },
  book: { summary: "show a market's order book (optionally live from the stream)", load: () => import('./commands/book.ts') },
  sign: { summary: 'sign orders and print the POST /orders body without sending it', load: () => import('./commands/sign.ts') },
  chaos: { summary: 'run the bot against the local exchange under injected faults and check invariants', load: () => import('./commands/chaos.ts') },
  ledger: { summary: 'read the books the bot keeps: summary, fills, orders, pnl', load: () => import('./commands/ledger.ts') },
  doctor: {
    summary: 'preflight of a live start: keys, wallet, permissions, collateral, migration, clock, markets, ports, ledger, limits',
    load: () => import('./commands/doctor.ts'),
  },
  ctl: { summary: 'control a running bot: clear-kill, reload, pause, resume, halt, status', load: () => import('./commands/ctl.ts') },
};

function mainHelp(): string {
  const w = Math.max(...Object.keys(COMMANDS).map((k) => k.length)) + 2;
  return [
    'Usage: bookmaker <command> [options]',
    '',
    'Market-making bot framework for Context Markets (API v2, Settlement V2, Base).',
    '',
    'Commands:',
    ...Object.entries(COMMANDS).map(([k, v]) => `  ${k.padEnd(w)}${v.summary}`),
    '',
    "Run 'bookmaker <command> --help' for a command's options.",
    '',
  ].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  // stdout or stderr on a full disk (a file, /dev/full): a write that fails is dropped and counted, from the
  // first line of every command, so the exit code is the command's own, never an ENOSPC stack (output-guard.ts)
  const failures = guardProcessOutput();
  const code = await dispatch(argv);
  if (argv[0] !== 'run') noteDroppedOutput(argv[0] ?? 'bookmaker', failures);
  return code;
}

/** One line on stderr when output of a one-shot command was lost (dropped too when stderr is the full one). */
function noteDroppedOutput(name: string, f: OutputFailures): void {
  if (f.stdout === 0 && f.stderr === 0) return;
  const lost = [f.stdout ? `${f.stdout} to stdout` : '', f.stderr ? `${f.stderr} to stderr` : ''].filter(Boolean).join(', ');
  process.stderr.write(`bookmaker ${name}: output lost: ${lost} could not be written (${f.lastError}); the exit code is the command's own\n`);
}

async function dispatch(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(mainHelp());
    return name ? 0 : 2;
  }
  const entry = COMMANDS[name];
  if (!entry) {
    process.stderr.write(`bookmaker: unknown command '${name}'\n\n${mainHelp()}`);
    return 2;
  }
  const cmd = (await entry.load()).default;
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(formatHelp(cmd));
    return 0;
  }
  let args;
  try {
    args = parseArgs(rest, cmd.options);
  } catch (e) {
    process.stderr.write(`bookmaker ${name}: ${e instanceof Error ? e.message : String(e)}\nRun 'bookmaker ${name} --help' for usage.\n`);
    return 2;
  }
  try {
    const code = await cmd.run(args);
    return typeof code === 'number' ? code : 0;
  } catch (e) {
    const msg = e instanceof BookmakerError ? `${e.code}: ${e.message}` : e instanceof Error ? e.message : String(e);
    process.stderr.write(`bookmaker ${name}: ${scrubSecrets(msg)}\n`);
    return commandExitCode(e);
  }
}

const isEntry = process.argv[1] !== undefined && /(?:^|[\\/])main\.ts$/.test(process.argv[1]);
if (isEntry) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e) => {
      process.stderr.write(`bookmaker: ${scrubSecrets(e instanceof Error ? e.message : String(e))}\n`);
      process.exitCode = 1;
    },
  );
}
