/**
 * `bookmaker run` children on one config and one ledger, as the ledger's end-to-end tests start them
 * again and again against a `bookmaker sim` child: the bands strategy at 1¢ from mid, every market,
 * a ledger in `dir` marking every second, metrics on a free port. Each child started is pushed to
 * `children`, so the test's `finally` can kill what is left.
 *
 *   const { ledger, run } = ledgerRuns({ dir, baseUrl, key, privateKey, children });
 *   const run1 = run(); ...; const run2 = run(['--duration', '5']);
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { systemClock } from '../../src/core/clock.ts';
import { ledgerSummary, pnlByMarket } from '../../src/ledger/books.ts';
import { openLedger, type Ledger } from '../../src/ledger/ledger.ts';
import { bandsDefaultsYaml, venueYaml } from '../support/bot-yaml.ts';
import { cli, type Child } from './harness.ts';

export interface LedgerRuns {
  /** the bot's config file */
  file: string;
  /** the ledger's file */
  ledger: string;
  /** `bookmaker run` on the config, with `more` flags after the usual ones */
  run(more?: string[]): Child;
}

export function ledgerRuns(o: {
  dir: string;
  baseUrl: string;
  key: string;
  privateKey: string;
  children: Child[];
  /** the body of an `account:` section (lines indented by two spaces), when given */
  account?: string;
}): LedgerRuns {
  const ledger = join(o.dir, 'books.sqlite');
  const file = join(o.dir, 'bot.yaml');
  writeFileSync(
    file,
    `${venueYaml(o.baseUrl)}${bandsDefaultsYaml([{ minMargin: 0.005, targetMargin: 0.01, maxMargin: 0.02, size: 10 }], 'mid')}  risk:
    maxPosition: 500
    maxNotional: 500
    maxOrderSize: 50
${o.account !== undefined ? `account:\n${o.account}\n` : ''}markets: all
orders:
  requoteIntervalSeconds: 0.1
  reconcileIntervalSeconds: 2
ledger:
  path: ${ledger}
  markSeconds: 1
metrics:
  port: 0
`,
  );
  const env = { BOOKMAKER_PRIVATE_KEY: o.privateKey };
  return {
    file,
    ledger,
    run(more = []) {
      const c = cli(['run', '-c', file, '--api-key', o.key, '--summary-seconds', '0', '--log-level', 'warn', ...more], env);
      o.children.push(c);
      return c;
    },
  };
}

/** `read` on the ledger at `file`, opened read-only as `bookmaker ledger` opens it, and closed whatever `read` did. */
export function readLedgerFile<T>(file: string, read: (l: Ledger) => T): T {
  const l = openLedger({ path: file, clock: systemClock, mustExist: true, readonly: true });
  try {
    return read(l);
  } finally {
    l.close();
  }
}

/** What `ledger summary` and `ledger pnl` print, from the ledger at `file`: its summary and its per-market rows. */
export function ledgerFigures(file: string): { summary: ReturnType<typeof ledgerSummary>; perMarket: ReturnType<typeof pnlByMarket> } {
  return readLedgerFile(file, (l) => ({ summary: ledgerSummary(l), perMarket: pnlByMarket(l) }));
}
