import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatPretty } from '../../src/core/log-format.ts';
import { LiveTerminal } from '../../src/runtime/live-terminal.ts';
import { startSummary } from '../../src/runtime/terminal-summary.ts';
import { asyncScheduler } from 'rxjs';
import type { Clock } from '../../src/core/clock.ts';

/** Timers run only when the test advances the clock. */
function steppedClock(): Clock & { advance(ms: number): void } {
  let t = 0;
  let timers: { at: number; fn: () => void }[] = [];
  return {
    scheduler: asyncScheduler,
    now: () => t,
    setTimeout(fn: () => void, ms: number) {
      const e = { at: t + ms, fn };
      timers.push(e);
      return () => void (timers = timers.filter((x) => x !== e));
    },
    advance(ms: number) {
      t += ms;
      const due = timers.filter((x) => x.at <= t);
      timers = timers.filter((x) => x.at > t);
      for (const d of due) d.fn();
    },
  };
}

/** A tiny terminal emulator: enough of ANSI (cursor up, CR, clear line, clear to end) to see the screen. */
function screen() {
  const rows: string[] = [''];
  let row = 0;
  let col = 0;
  const write = (s: string): void => {
    for (let i = 0; i < s.length; i++) {
      if (s[i] === '\x1b') {
        const m = /^\x1b\[(\d*)([A-Za-z])/.exec(s.slice(i))!;
        const n = m[1] === '' ? 1 : Number(m[1]);
        if (m[2] === 'A') row = Math.max(0, row - n);
        else if (m[2] === 'K') rows[row] = '';
        else if (m[2] === 'J') (rows.length = row + 1), (rows[row] = rows[row]!.slice(0, col));
        i += m[0].length - 1;
      } else if (s[i] === '\r') col = 0;
      else if (s[i] === '\n') {
        row++;
        col = 0;
        if (rows.length <= row) rows.push('');
      } else {
        const line = rows[row] ?? '';
        rows[row] = line.slice(0, col) + s[i] + line.slice(col + 1);
        col++;
      }
    }
  };
  return { write, text: () => rows.join('\n').replace(/\n+$/, '') };
}

test('logs print above the summary; the summary is redrawn below them and never garbled', () => {
  const s = screen();
  const term = new LiveTerminal(s);
  const logs = term.sink(s);
  const clock = steppedClock();
  let n = 0;
  const stop = startSummary({ clock, everyMs: 1000, write: s.write, tty: true, terminal: term, render: () => [`summary ${++n}`, 'row a', 'row b'] });
  clock.advance(1000);
  logs.write('log one\n');
  logs.write('log two\n');
  clock.advance(1000);
  logs.write('log three\n');
  assert.equal(s.text(), ['log one', 'log two', 'log three', 'summary 2', 'row a', 'row b'].join('\n'));
  stop();
  logs.write('after stop\n');
  assert.equal(s.text(), ['log one', 'log two', 'log three', 'summary 3', 'row a', 'row b', 'after stop'].join('\n'));
});

test('pretty lines: time, level, component, message, fields; errors with their stack; non-JSON passed through', () => {
  const t = new Date(2026, 0, 2, 3, 4, 5, 6).getTime();
  const line = formatPretty(
    JSON.stringify({
      level: 40,
      time: t,
      pid: 1,
      hostname: 'h',
      name: 'bookmaker',
      component: 'bot',
      msg: 'retrying',
      step: 'select markets',
      attempt: 2,
      code: 'ECONNREFUSED',
    }),
  );
  assert.equal(line, '03:04:05.006 WARN  bot: retrying step="select markets" attempt=2 code=ECONNREFUSED\n');
  const err = formatPretty(
    JSON.stringify({ level: 50, time: t, msg: 'boom', err: { type: 'Error', message: 'bad thing', stack: 'Error: bad thing\n    at f (x.ts:1:1)' } }),
  );
  assert.equal(err, '03:04:05.006 ERROR boom err="bad thing"\n    at f (x.ts:1:1)\n');
  assert.equal(formatPretty('not json'), 'not json\n');
  assert.match(formatPretty(JSON.stringify({ level: 60, time: t, msg: 'x' }), { colors: true }), /\x1b\[/);
});
