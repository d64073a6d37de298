/**
 * `bookmaker ctl status` for a person: the answer of GET /admin/status (bot-control.ts,
 * status-books.ts) as lines of text. `--json` prints the answer itself. The figures are the answer's
 * strings as they came (exact, six decimals): nothing is recomputed or rounded here.
 *
 *   statusText(body) → 'bot       pid 4242, account 0x…\nstate     quoting\n…'
 *
 * The answer comes over the network: a field missing or of another type shows as '?', never a crash.
 */
import { haltText, latchText, type HaltLike } from '../ledger/held-state.ts';
import { describeIdentity, parseIdentity } from './identity.ts';

type Obj = Record<string, unknown>;

const obj = (v: unknown): Obj | null => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : null);
const str = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : '?');
const row = (k: string, v: string): string => `${k.padEnd(12)}${v}`;

function hold(h: Obj | null): string {
  if (!h) return '';
  const reason = typeof h.reason === 'string' && h.reason !== '' ? `: ${h.reason}` : '';
  const from = typeof h.from === 'string' ? ` (from the ${h.from})` : '';
  return `${h.since ? ` since ${str(h.since)}` : ''}${reason}${from}`;
}

const atOf = (v: unknown): number | null => (typeof v === 'string' && Number.isFinite(Date.parse(v)) ? Date.parse(v) : null);

/** A halt of the answer as haltText reads it (an answer without a source: the operator's, as older bots meant). */
const haltOf = (h: Obj | null): HaltLike => ({
  reason: typeof h?.reason === 'string' && h.reason !== '' ? h.reason : null,
  source: typeof h?.source === 'string' ? h.source : 'admin',
  at: atOf(h?.since),
  ...(typeof h?.from === 'string' ? { from: h.from } : {}),
});

/** "KILL SWITCH LATCHED since …", "HALTED by …": the sentence's first words in capitals, the rest as said */
const upper = (s: string): string => s.replace(/^(kill switch latched|halted)/, (w) => w.toUpperCase());

function table(rows: string[][]): string[] {
  const w = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r
      .map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!)))
      .join('  ')
      .trimEnd(),
  );
}

export function statusText(body: unknown): string {
  const b = obj(body);
  if (!b) return `${JSON.stringify(body)}\n`;
  const out: string[] = [];
  const id = parseIdentity(b.identity);
  if (id) out.push(row('bot', describeIdentity(id)));
  if (b.starting === true) {
    out.push(row('state', `starting: ${str(b.phase)} since ${str(b.since)}`));
    const h = obj(b.halt);
    if (h) out.push(row('halt', `held for when it runs${hold(h)}${h.persisted === false ? ' (not written to the ledger: this run only)' : ''}`));
    out.push(row('books', 'not open yet: the money figures show once the bot runs'));
    return out.join('\n') + '\n';
  }
  const k = obj(b.killSwitch);
  const states: string[] = [];
  // the kill switch and the halt in the words of the start-up line and /readyz (src/ledger/held-state.ts)
  if (b.latched === true)
    states.push(upper(latchText({ reason: str(k?.reason), detail: typeof k?.detail === 'string' ? k.detail : null, at: atOf(k?.since) })));
  if (b.halted === true) states.push(upper(haltText(haltOf(obj(b.halt)))));
  // the bot's own holds (the ledger cannot be written …): ctl resume does not lift them
  const holds = Array.isArray(b.holds) ? b.holds.map(obj).filter((h): h is Obj => h !== null) : [];
  for (const h of holds) states.push(`NOT QUOTING (${str(h.hold)}): ${str(h.reason)}`);
  out.push(row('state', states.length ? states.join('; ') : 'quoting'));
  const pauses = Array.isArray(b.pauses) ? b.pauses.map(obj).filter((p): p is Obj => p !== null) : [];
  for (const p of pauses) out.push(row('paused', `${str(p.market)}${hold(p)}`));
  out.push(row('markets', `${str(b.markets)} quoted, ${Array.isArray(b.retiring) ? b.retiring.length : '?'} retiring`));

  const books = obj(b.books);
  const a = obj(books?.account);
  if (a) {
    out.push(
      row(
        'account',
        `pnl ${str(a.pnl)} USDC (realised ${str(a.realised)}, unrealised ${str(a.unrealised)}${a.markedAt ? ` at ${str(a.markedAt)}` : '; no mark yet'})`,
      ),
      row('', `fees ${str(a.fees)} USDC, volume ${str(a.volume)} USDC, fills ${str(a.fills)}, cash ${str(a.cash)} USDC (since the books began)`),
    );
  }
  const f = obj(b.killSwitchFigures);
  if (f) {
    const of = (v: unknown): string => (v === null ? ', no limit' : ` of ${str(v)} max`);
    out.push(
      row('kill switch', `drawdown ${str(f.drawdown)}${of(f.maxDrawdown)} (peak ${str(f.peak)}, pnl ${str(f.pnl)})`),
      row('', `day's loss ${str(f.dailyLoss)}${of(f.maxDailyLoss)} (the day began at ${str(f.dayStartPnl)})`),
      row('', `loss since inception ${str(f.loss)}${of(f.maxLoss)}`),
    );
  }
  const markets = Array.isArray(books?.markets) ? books.markets.map(obj).filter((m): m is Obj => m !== null) : [];
  if (markets.length > 0) {
    out.push('');
    out.push(
      ...table([
        ['market', 'quoted', 'position', 'realised', 'unrealised', 'pnl', 'fills', 'volume', 'fees'],
        ...markets.map((m) => [
          str(m.market),
          m.quoted === true ? 'yes' : 'no',
          str(m.position),
          str(m.realised),
          str(m.unrealised),
          str(m.pnl),
          str(m.fills),
          str(m.volume),
          str(m.fees),
        ]),
      ]),
    );
  }
  return out.join('\n') + '\n';
}
