/**
 * Flags and flag readers several commands share: the recording window (`--data`, `--from`, `--to`),
 * `--config`, `--metrics-port`, and the two-step Ctrl-C of the long runs (the first stops and keeps
 * what is done, the second quits at once with exit 130).
 */
import { BadInputError } from '../model/errors.ts';
import type { OptionSpec, ParsedArgs } from './args.ts';

/** `-c FILE`, described for the command. */
export function configFlag(description: string): OptionSpec {
  return { type: 'string', short: 'c', arg: 'FILE', description };
}

/** `--data DIR [--from T --to T]`: a recording and a window of it. */
export const RECORDING_FLAGS: Record<'data' | 'from' | 'to', OptionSpec> = {
  data: { type: 'string', short: 'd', arg: 'DIR', description: 'recording directory (bookmaker record / import)' },
  from: { type: 'string', arg: 'T', description: 'start of the window' },
  to: { type: 'string', arg: 'T', description: 'end of the window (exclusive)' },
};

/** The `--config` file, required; `example` shows one in the error (`-c config/local.yaml`). */
export function requireConfig(o: ParsedArgs['options'], example: string): string {
  const file = o.config;
  if (typeof file !== 'string' || !file) throw new BadInputError('--config', `a config file (${example})`, file);
  return file;
}

/** `--metrics-port`, when given: an integer from 0 to 65535. */
export function metricsPortFlag(o: ParsedArgs['options']): number | undefined {
  const port = o['metrics-port'] as number | undefined;
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535))
    throw new BadInputError('--metrics-port', 'an integer from 0 to 65535', port);
  return port;
}

/**
 * Ctrl-C for a long run: the first aborts `signal` and says `message` on stderr (the run stops and
 * keeps what is done), a second exits 130 at once. `dispose()` removes the handler.
 */
export function onCtrlC(message: string): { signal: AbortSignal; dispose(): void } {
  const stop = new AbortController();
  const onSigint = (): void => {
    if (stop.signal.aborted) process.exit(130);
    stop.abort();
    process.stderr.write(`\ninterrupted: ${message}\n`);
  };
  process.on('SIGINT', onSigint);
  return { signal: stop.signal, dispose: () => process.off('SIGINT', onSigint) };
}
