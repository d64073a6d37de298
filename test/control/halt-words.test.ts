/**
 * A halt restored from an earlier run is named by its own source, in the same words, in every place an
 * operator reads it: the restore log, /readyz (the control's reasons, and the holds phase's before the
 * control is wired), `ctl status` (its text from the status answer) and doctor (heldLines). Every
 * source the ledger and the latch file can hold: the operator (`admin`, `cli`), the wallet watch
 * (`wallet`), the latch file's own halts (damaged, unreadable, pauses overflowing) and one this version
 * does not know. Before, a restarted bot halted by the wallet watch said "halted by the operator" in its
 * start-up line and during start-up on /readyz, and `ctl status` called a damaged latch file's halt the
 * operator's.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BotControl } from '../../src/control/bot-control.ts';
import { statusText } from '../../src/control/status-text.ts';
import type { Logger } from '../../src/core/logger.ts';
import { haltText, heldLines, latchText } from '../../src/ledger/held-state.ts';
import { DAMAGED_CLEAR, PAUSES_OVERFLOW } from '../../src/ledger/latch-file.ts';
import type { OperatorHold } from '../../src/ledger/ledger.ts';
import { OperatorView } from '../../src/runtime/phases/operator-view.ts';
import { holdsPhase } from '../../src/runtime/phases/holds.ts';
import { fakeKernel } from './fake-kernel.ts';

const AT = Date.parse('2026-11-29T10:00:00.000Z');

/** a logger that keeps its warn lines' messages */
function keepingLogger(lines: string[]): Logger {
  const l = {
    child: () => l,
    warn: (_o: unknown, msg: string) => void lines.push(msg),
    info: () => undefined,
    error: () => undefined,
    debug: () => undefined,
  };
  return l as unknown as Logger;
}

/** each source the records can hold, with the words that must name it and what lifts it */
const CASES: { hold: OperatorHold; by: RegExp; lifts: RegExp }[] = [
  {
    hold: { source: 'admin', reason: 'incident 9', at: AT, from: 'ledger and latch file' },
    by: /^halted by the operator since /,
    lifts: /; bookmaker ctl resume lifts it$/,
  },
  {
    hold: { source: 'cli', reason: 'desk', at: AT, from: 'ledger' },
    by: /^halted by the operator \(offline ctl\) since /,
    lifts: /, in the ledger only; bookmaker ctl resume lifts it$/,
  },
  {
    hold: { source: 'wallet', reason: 'another trader on this wallet: 1 order with nonce tag 00112233aabbccdd', at: AT, from: 'ledger and latch file' },
    by: /^halted by the bot since 2026-11-29T10:00:00\.000Z: another trader on this wallet: 1 order with nonce tag 00112233aabbccdd; /,
    lifts: /; stop the other trader on this wallet, then bookmaker ctl resume lifts it$/,
  },
  {
    hold: { source: 'latch-file', reason: `latch file damaged (fail closed): ${DAMAGED_CLEAR}`, at: 0, from: 'latch file' },
    by: /^halted by the latch file, which cannot be read \(fail closed\): latch file damaged/,
    lifts: /, in the latch file only; it needs both bookmaker ctl clear-kill and bookmaker ctl resume$/,
  },
  {
    hold: { source: 'latch-file', reason: `${PAUSES_OVERFLOW} (300 paused markets)`, at: AT, from: 'latch file' },
    by: /^halted by the bot since .*: pauses overflow the latch file \(300 paused markets\)/,
    lifts: /; bookmaker ctl resume lifts it \(and every pause it stands for\)$/,
  },
  {
    hold: { source: 'watchdog', reason: 'a newer version', at: AT },
    by: /^halted by watchdog since .*: a newer version; /,
    lifts: /bookmaker ctl resume lifts it$/,
  },
];

test('a restored halt is named by its own source and what lifts it, alike in the log, /readyz, ctl status and doctor', () => {
  for (const { hold, by, lifts } of CASES) {
    const logged: string[] = [];
    const { kernel } = fakeKernel();
    const control = new BotControl({
      kernel,
      ledger: null,
      logger: keepingLogger(logged),
      config: { file: '' } as never,
      loadConfig: async () => ({}) as never,
      selectMarkets: async () => [],
      applyMarkets: async () => ({ started: [], retired: [], waiting: [], changed: [] }),
    });
    control.restore({ halt: hold, pauses: new Map() });
    const words = haltText(hold);
    const what = `${hold.source}: ${words}`;
    assert.match(words, by, what);
    assert.match(words, lifts, what);
    assert.ok(!/by the operator/.test(words) || hold.source === 'admin' || hold.source === 'cli', what);
    // the restore log line
    assert.deepEqual(logged, [`held from an earlier run: ${words}`], what);
    // /readyz once the control is wired
    assert.deepEqual(control.readinessReasons(), [words], what);
    // ctl status: the status answer, as text
    const state = statusText(control.status())
      .split('\n')
      .find((l) => l.startsWith('state'))!;
    assert.equal(state, `state       HALTED${words.slice('halted'.length)}`, what);
    // doctor, without the bot (`ctl resume` needs it running)
    const doctor = heldLines({ latch: null, halt: hold, pauses: new Map(), ledgerUnread: null }, '/x/l.sqlite')[0]!;
    assert.ok(doctor.startsWith(words), `${what} / ${doctor}`);
  }
});

test('/readyz during start-up (before the control is wired) names the restored halt by its source', () => {
  for (const { hold, by } of CASES) {
    const { kernel } = fakeKernel();
    const operator = new OperatorView();
    const cp = { core: { kernel }, startTicking: () => undefined, operator, ledgerWatch: { start: () => undefined, stop: () => undefined } };
    const c = {
      life: { add: () => undefined },
      clock: { now: () => AT, setTimeout: () => () => undefined },
      cfg: { ledger: { retainDays: 0 } },
      o: { logger: keepingLogger([]) },
    };
    const bookLedger = { operatorHolds: () => ({ halt: hold, pauses: new Map() }), ledger: {} };
    holdsPhase(c as never, [], { bookLedger } as never, cp as never);
    assert.equal(kernel.halted, true);
    assert.deepEqual(operator.reasons(), [haltText(hold)], hold.source);
    assert.match(operator.reasons()[0]!, by, hold.source);
  }
});

test('the kill switch latch: its reason, and what lifts it (a damaged latch file: both commands)', () => {
  assert.equal(
    latchText({ reason: 'KILL_DRAWDOWN', detail: 'drawdown 60 > 50', at: AT, from: 'ledger' }),
    'kill switch latched since 2026-11-29T10:00:00.000Z: KILL_DRAWDOWN (drawdown 60 > 50), in the ledger only; bookmaker ctl clear-kill --reason TEXT lifts it',
  );
  assert.match(
    latchText({ reason: 'LATCH_FILE_UNREADABLE', detail: 'EACCES', at: 0 }),
    /^kill switch latched: LATCH_FILE_UNREADABLE \(EACCES\); it needs both bookmaker ctl clear-kill and bookmaker ctl resume$/,
  );
  // ctl status says the kill switch in the same words
  const state = statusText({ latched: true, killSwitch: { reason: 'KILL_LOSS', detail: 'loss 60 > 50', since: '2026-11-29T10:00:00.000Z' }, halted: false });
  assert.match(
    state,
    /^state {7}KILL SWITCH LATCHED since 2026-11-29T10:00:00\.000Z: KILL_LOSS \(loss 60 > 50\); bookmaker ctl clear-kill --reason TEXT lifts it$/m,
  );
});
