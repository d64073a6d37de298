/**
 * Why a benchmark's bot child ended before the run did, in the operator's words: its exit code, what the
 * code means (the same words as docs/reference/exit-codes.md: EXIT_MEANINGS of scripts/docs.ts), and the
 * bot's own reason (the last fatal or error line of its log, e.g. the watchdog's `exit 5: the event loop
 * did not turn for 1.02 s …`). The load benchmark prints it and records the run as failed instead of
 * throwing a stack.
 *
 *   const end = botEnd(await bot.exited, readFileSync(logFile, 'utf8'));
 *   end.text   // 'the bot exited 5 (the watchdog found the event loop blocked …): watchdog: exit 5: …'
 */
import { EXIT_MEANINGS, exitCodes } from '../../scripts/docs.ts';

export interface BotEnd {
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** what the exit code means (docs/reference/exit-codes.md), or how the process was killed */
  readonly meaning: string;
  /** the bot's last fatal (else error) log line's message, or null when its log has none */
  readonly reason: string | null;
  readonly text: string;
}

/** The meaning of an exit code of `bookmaker run`, as docs/reference/exit-codes.md gives it. */
export function exitMeaning(code: number): string {
  const name = exitCodes().find((c) => c.code === code)?.name;
  if (name && EXIT_MEANINGS[name]) return EXIT_MEANINGS[name]!;
  if (code === 2) return 'bad input: config, CLI flag, missing key, unusable metrics port; nothing was started';
  return 'not an exit code bookmaker documents (a crash of the process)';
}

/** The last message at `level` or above in a pino JSON log (null when none). */
function lastMessage(log: string, level: number): string | null {
  const lines = log.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i]!.trim();
    if (!l.startsWith('{')) continue;
    try {
      const o = JSON.parse(l) as { level?: unknown; msg?: unknown };
      if (typeof o.level === 'number' && o.level >= level && typeof o.msg === 'string') return o.msg;
    } catch {
      // a line that is not JSON (stderr of the child): skipped
    }
  }
  return null;
}

export function botEnd(exit: { code: number | null; signal: string | null }, log: string): BotEnd {
  const reason = lastMessage(log, 60) ?? lastMessage(log, 50);
  const meaning =
    exit.code !== null
      ? exitMeaning(exit.code)
      : `killed by ${exit.signal ?? 'a signal'} (from outside: the kernel's out-of-memory killer, a person, a supervisor)`;
  const head = exit.code !== null ? `the bot exited ${exit.code}` : `the bot was killed (${exit.signal ?? 'signal'})`;
  return { exitCode: exit.code, signal: exit.signal, meaning, reason, text: `${head} (${meaning})${reason ? `: ${reason}` : ''}` };
}
