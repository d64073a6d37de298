/**
 * The quoting kernel as BotControl reads it (src/control/bot-control.ts), for the control's tests: a halt flag
 * that `pause(null)` sets and `resume(null)` clears, the holds the bot placed on itself (`selfHolds`, empty
 * until a test sets one), empty books and risk, and no markets.
 */
import { Account } from '../../src/account/account.ts';
import { AccountRisk } from '../../src/account/account-risk.ts';
import type { QuotingKernel } from '../../src/kernel/quoting-kernel.ts';

export function fakeKernel(): { kernel: QuotingKernel; selfHolds: Map<string, string> } {
  let halted = false;
  const holds = new Map<string, string>();
  const kernel = {
    account: new Account(),
    accountRisk: new AccountRisk(),
    killed: null,
    get halted() {
      return halted;
    },
    get held() {
      return holds;
    },
    pause: (m: unknown) => void (m === null && (halted = true)),
    resume: (m: unknown) => void (m === null && (halted = false)),
    pausedList: () => [],
    marketIds: () => [],
    retiring: () => [],
    hasMarket: () => false,
  } as unknown as QuotingKernel;
  return { kernel, selfHolds: holds };
}
