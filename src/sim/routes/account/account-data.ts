/**
 * Persisted data of the account routes, under `state.ext.accounts` (JSON-friendly, saved with
 * `--state FILE`): question submissions, the questions they produced, and a counter for simulated
 * transaction hashes.
 */
import { keccakText } from '../../../exchange/signing/text-hash.ts';
import { extData, type ExchangeState } from '../../context.ts';
import type { Bytes32 } from '../../../model/order.ts';
import type { LowerAddress } from '../../wire-ids.ts';

export interface QuestionRecord {
  id: Bytes32;
  submissionId: string;
  text: string;
  shortText: string;
  criteria: string;
  explanation: string;
  /** unix seconds */
  endTime: number;
  sources: string[];
  evidenceMode: 'social_only' | 'web_enabled';
  /** the market created from it, once created */
  marketId: Bytes32 | null;
}

export interface SubmissionRecord {
  id: string;
  /** wallet of the submitting key */
  owner: LowerAddress;
  /** ms since epoch */
  createdAt: number;
  kind: 'question' | 'agent';
  questionIds: Bytes32[];
  /** set when generation will fail (shown once the submission would have completed) */
  rejection?: { code: string; message: string } | null;
}

export interface AccountData {
  txCounter: number;
  submissionCounter: number;
  submissions: Record<string, SubmissionRecord>;
  questions: Record<string, QuestionRecord>;
}

export const ACCOUNTS_EXT_KEY = 'accounts';

export function accountData(state: ExchangeState): AccountData {
  return extData<AccountData>(state, ACCOUNTS_EXT_KEY, () => ({ txCounter: 0, submissionCounter: 0, submissions: {}, questions: {} }));
}

/** A fresh deterministic simulated transaction hash. */
export function nextAccountTxHash(state: ExchangeState, label: string, who: LowerAddress): Bytes32 {
  const d = accountData(state);
  d.txCounter++;
  return keccakText(`bookmaker-sim:${state.settings.seed}:${label}:${who}:${d.txCounter}`);
}
