/**
 * `bookmaker ledger summary|fills|orders|pnl -c FILE [--since T] [--market M] [--csv|--json]`:
 * the books the bot keeps (src/ledger), for accounting and audits. Read-only: the file is opened
 * read-only and never created, so it is safe next to a running bot (SQLite WAL).
 * `bookmaker ledger check|backup|prune`: see ledger-admin.ts.
 */
import type { CommandSpec, ParsedArgs } from '../args.ts';
import { parseDuration } from '../args.ts';
import { loadConfig } from '../../config/load-config.ts';
import { BadInputError } from '../../model/errors.ts';
import { bytes32Of } from '../../model/ids.ts';
import { ledgerPath } from '../../ledger/bot-ledger.ts';
import { accountMarks, ledgerSummary, listFills, listOrders, pnlByMarket, type Filter } from '../../ledger/books.ts';
import { orderEndsText, strangersText } from '../../ledger/order-ends.ts';
import { openLedger, type Ledger } from '../../ledger/ledger.ts';
import { systemClock } from '../../core/clock.ts';
import { existsSync } from 'node:fs';
import { ADMIN_SUBS, runLedgerAdmin, type AdminSub } from './ledger-admin.ts';

const SUBS = ['summary', 'fills', 'orders', 'pnl'] as const;
type Sub = (typeof SUBS)[number];
const ALL_SUBS: readonly string[] = [...SUBS, ...ADMIN_SUBS];

const command: CommandSpec = {
  name: 'ledger',
  summary: 'read the books: summary, fills, orders, pnl (from the ledger the bot keeps); check, backup, prune the ledger',
  usage:
    'bookmaker ledger summary|fills|orders|pnl -c FILE [--ledger PATH] [--since T] [--market M] [--csv|--json] [--limit N]\n' +
    '       bookmaker ledger check -c FILE | --ledger PATH [--json]\n' +
    '       bookmaker ledger backup --out FILE -c FILE | --ledger PATH [--json]\n' +
    '       bookmaker ledger prune [--retain-days N] -c FILE | --ledger PATH [--json]',
  description:
    'Reads the ledger named by the config (ledger.path; default .bookmaker/<config name>.ledger.sqlite beside the config) or --ledger. ' +
    "summary: fills, volume, fees (by source: venue or fee model), realised PnL (USDC), cash and positions since the baseline, the resolved markets held unclaimed and what claiming them pays, PnL at the last mark, foreign fills (orders this bookmaker did not place) apart, orders and cancels, start-ups, the kill-switch latch. fills / orders: one line each; an order the bot cancelled as a stranger says so in its stranger column (no-record: the ledger had no row of it; earlier-run: an earlier run's order). " +
    'pnl: per market (fills, volume, fees, realised PnL, position, last unrealised mark); --marks lists the account PnL marks instead. ' +
    '--since takes an ISO time (2026-11-25T00:00Z), a duration ago (90m, 24h, 7d) or epoch ms. ' +
    'check: full integrity check of the file (exit 1 when damaged), its latch file and its writer. ' +
    'backup --out FILE: a consistent copy of the live ledger (SQLite online backup: what is still in the WAL included), safe beside a running bot; copying the .sqlite file alone is not a backup. ' +
    'prune: remove orders, cancels and marks older than --retain-days (default ledger.retainDays, 90) and return the space; never fills, risk records or operator actions; refused while a bot writes the ledger (a running bot prunes by itself). ' +
    'See docs/ledger-operations.md.',
  positionals: ['summary|fills|orders|pnl|check|backup|prune'],
  options: {
    config: { type: 'string', short: 'c', description: 'YAML config file (names the ledger)', arg: 'FILE' },
    ledger: { type: 'string', description: 'ledger file (overrides the config)', arg: 'PATH' },
    since: { type: 'string', description: 'only records at or after T', arg: 'T' },
    market: { type: 'string', description: 'only this market id', arg: 'M' },
    csv: { type: 'boolean', description: 'CSV output', default: false },
    json: { type: 'boolean', description: 'JSON output', default: false },
    limit: { type: 'number', description: 'fills/orders: at most N lines (0 = all)', default: 0, arg: 'N' },
    marks: { type: 'boolean', description: 'pnl: the account PnL marks over time', default: false },
    paper: { type: 'boolean', description: "the paper account's books (run --paper keeps them apart)", default: false },
    out: { type: 'string', description: 'backup: the file to write (never overwritten)', arg: 'FILE' },
    'retain-days': { type: 'number', description: 'prune: keep this many days (default ledger.retainDays, 90)', arg: 'N' },
  },
  run,
};
export default command;

export function parseSince(text: string, now: number): number {
  const t = text.trim();
  if (/^\d{12,}$/.test(t)) return Number(t);
  const ago = /^(\d+(?:\.\d+)?)d$/.exec(t);
  if (ago) return now - Math.round(Number(ago[1]) * 86_400_000);
  if (/^\d+(?:\.\d+)?(ms|s|m|h)?$/.test(t)) return now - Math.round(parseDuration(t, '--since') * 1000);
  const ms = Date.parse(t);
  if (!Number.isFinite(ms)) throw new BadInputError('--since', 'an ISO time, a duration ago (90m, 24h, 7d) or epoch ms', text);
  return ms;
}

async function run(args: ParsedArgs): Promise<number> {
  const o = args.options;
  const sub = args.positionals[0] as Sub | AdminSub | undefined;
  if (!sub || !ALL_SUBS.includes(sub)) throw new BadInputError('command', `one of ${ALL_SUBS.join(', ')}`, sub ?? '');
  if (args.positionals.length > 1) throw new BadInputError('arguments', 'one subcommand', args.positionals.join(' '));
  if (o.csv && o.json) throw new BadInputError('--csv/--json', 'one output format', 'both');
  const limit = o.limit as number;
  if (!Number.isInteger(limit) || limit < 0) throw new BadInputError('--limit', 'an integer ≥ 0', limit);
  let path = o.ledger as string | undefined;
  let retainDays = 90;
  if (!path) {
    const file = o.config as string | undefined;
    if (!file) throw new BadInputError('--config', 'a config file (-c FILE) or --ledger PATH', file);
    const cfg = await loadConfig(file, { env: process.env });
    path = ledgerPath(cfg, false, o.paper === true);
    retainDays = cfg.ledger.retainDays;
  }
  if (path === ':memory:') throw new BadInputError('ledger.path', 'a file (this config keeps its ledger in memory)', path);
  if (!existsSync(path)) throw new BadInputError('ledger', 'an existing ledger file (has the bot run with this config?)', path);
  if ((ADMIN_SUBS as readonly string[]).includes(sub)) {
    const rd = o['retain-days'] as number | undefined;
    return runLedgerAdmin(sub as AdminSub, path, {
      ...(o.out !== undefined ? { out: o.out as string } : {}),
      retainDays: rd ?? retainDays,
      json: o.json === true,
    });
  }
  // the id in the ledger's form (lower-case hex), whatever case it was typed in
  const market = o.market === undefined ? undefined : bytes32Of(o.market);
  if (market === null) throw new BadInputError('--market', 'a 0x market id (64 hex digits)', o.market);
  const f: Filter = {
    ...(o.since !== undefined ? { since: parseSince(o.since as string, systemClock.now()) } : {}),
    ...(market ? { market } : {}),
  };
  const ledger = openLedger({ path, clock: systemClock, mustExist: true, readonly: true });
  try {
    const fmt: Format = o.json ? 'json' : o.csv ? 'csv' : 'text';
    process.stdout.write(render(ledger, sub as Sub, f, fmt, limit, o.marks === true));
  } finally {
    ledger.close();
  }
  return 0;
}

type Format = 'text' | 'csv' | 'json';

const iso = (ms: number | null): string => (ms === null ? '' : new Date(ms).toISOString());

function render(ledger: Ledger, sub: Sub, f: Filter, fmt: Format, limit: number, marks: boolean): string {
  switch (sub) {
    case 'summary': {
      const s = ledgerSummary(ledger, f);
      if (fmt === 'json') return JSON.stringify(s) + '\n';
      const rows: [string, string | number][] = [
        ['fills', s.fills],
        ['volume', s.volume],
        ['fees', s.fees],
        ['realisedPnl', s.realisedPnl],
        ['unrealisedPnl', s.unrealisedPnl ?? ''],
        ['markets', s.markets],
        ['cashUsdc', s.cashUsdc],
        ['positions', s.positions.map((x) => `${x.shares} ${x.outcomeIndex === 1 ? 'YES' : 'NO'} ${x.marketId}`).join('; ')],
        [
          'claimable',
          s.claimable.markets.length === 0
            ? `${s.claimable.totalUsdc} (no resolved market held unclaimed)`
            : `${s.claimable.totalUsdc} (${s.claimable.markets.length} resolved market(s) held unclaimed: ` +
              `${s.claimable.markets.map((m) => `${m.claimableUsdc} ${m.marketId}`).join('; ')})`,
        ],
        [
          'pnl',
          s.pnl.markedAt === null
            ? `${s.pnl.total} (realised ${s.pnl.realised}; no mark yet)`
            : `${s.pnl.total} (realised ${s.pnl.realised}, unrealised ${s.pnl.unrealised} at ${iso(s.pnl.markedAt)})`,
        ],
        ['feesVenue', s.feesBySource.venue],
        ['feesModel', s.feesBySource.model],
        ['foreignFills', s.foreign.fills],
        ['foreignVolume', s.foreign.volume],
        ['foreignFees', s.foreign.fees],
        ['baseline', s.baseline ? `${s.baseline.holdings} holding(s), ${s.baseline.collateralUsdc} USDC, adopted ${iso(s.baseline.at)}` : 'none'],
        ['ordersSent', s.orders.sent],
        ['ordersAccepted', s.orders.accepted],
        ['ordersRejected', s.orders.rejected],
        ['ordersAdopted', s.orders.adopted],
        ['cancelsSent', s.orders.cancels],
        ['orderEnds', orderEndsText(s.orderEnds)],
        ['strangers', strangersText(s.orderEnds.strangers)],
        ['startups', s.startups],
        ['firstFill', iso(s.firstFillAt)],
        ['lastFill', iso(s.lastFillAt)],
        ['killSwitch', s.killSwitch.latched ? `LATCHED ${s.killSwitch.reason} since ${iso(s.killSwitch.at)}: ${s.killSwitch.detail}` : 'clear'],
      ];
      if (fmt === 'csv') return 'key,value\n' + rows.map(([k, v]) => `${k},${csvCell(v)}`).join('\n') + '\n';
      return rows.map(([k, v]) => `${k.padEnd(16)}${v}`).join('\n') + '\n';
    }
    case 'fills':
      return table(
        listFills(ledger, f, limit).map((x) => ({ ...x, ts: iso(x.ts) })),
        fmt,
      );
    case 'orders':
      return table(
        listOrders(ledger, f, limit).map((x) => ({ ...x, submittedAt: iso(x.submittedAt), endedAt: iso(x.endedAt) })),
        fmt,
      );
    case 'pnl':
      if (marks)
        return table(
          accountMarks(ledger, f).map((x) => ({ ...x, ts: iso(x.ts) })),
          fmt,
        );
      return table(
        pnlByMarket(ledger, f).map((x) => ({ ...x, markedAt: iso(x.markedAt) })),
        fmt,
      );
  }
}

function csvCell(v: unknown): string {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function table(rows: Record<string, unknown>[], fmt: Format): string {
  if (fmt === 'json') return JSON.stringify(rows) + '\n';
  if (rows.length === 0) return fmt === 'csv' ? '' : '(none)\n';
  const cols = Object.keys(rows[0]!);
  if (fmt === 'csv') return [cols.join(','), ...rows.map((r) => cols.map((c) => csvCell(r[c])).join(','))].join('\n') + '\n';
  const cells = rows.map((r) => cols.map((c) => (r[c] === null || r[c] === undefined ? '' : String(r[c]))));
  const w = cols.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i]!.length)));
  const line = (xs: string[]): string =>
    xs
      .map((x, i) => x.padEnd(w[i]!))
      .join('  ')
      .trimEnd();
  return [line(cols), ...cells.map(line)].join('\n') + '\n';
}
