/**
 * Market creation (auth; the key needs `can_create_markets`): submit a question (free text or the agent's
 * structured market), poll the submission with a bounded wait, and create the market on-chain.
 *
 * Polling follows the SDK: every 2000 ms, at most 45 attempts (both injectable). A `failed` submission becomes a
 * synthetic VenueError 422 and running out of attempts a synthetic 408, so callers handle one error type.
 * None of these writes is retried on 5xx/network (each creates something); 429 back-off still applies.
 */
import { BadInputError } from '../../model/errors.ts';
import type { Bytes32, Hex } from '../../model/order.ts';
import { requestObject, type ClientContext } from './context.ts';
import { VenueError } from './errors.ts';
import { arrIfPresent, asObject, at, bytes32, nstr, str, type At, type Rec } from './fields.ts';
import { checkBytes32 } from './inputs.ts';
import { seg } from './transport.ts';

export type SubmissionStatus = 'pending' | 'processing' | 'completed' | 'failed' | string;

export interface QuestionSubmitted {
  submissionId: string;
  status: SubmissionStatus;
  pollUrl: string | null;
}

export interface Submission {
  submissionId: string | null;
  status: SubmissionStatus;
  questions: { id: Bytes32; text: string | null; shortText: string | null; data: Rec }[];
  statusUpdates: Rec[];
  rejectionReasons: Rec[];
  refuseToResolve: boolean;
  qualityExplanation: string | null;
}

function parseSubmitted(json: unknown, ep: string): QuestionSubmitted {
  const a = at(ep);
  const o = asObject(json, a);
  return { submissionId: str(o, 'submissionId', a), status: str(o, 'status', a), pollUrl: nstr(o, 'pollUrl', a) };
}

/** POST /questions `{question}` (1–1000 characters). */
export async function submitQuestion(ctx: ClientContext, question: string): Promise<QuestionSubmitted> {
  const ep = 'POST /questions';
  if (typeof question !== 'string' || question.trim().length === 0 || question.length > 1000)
    throw new BadInputError('question', 'a text of 1 to 1000 characters', question);
  const res = await ctx.t.request({ method: 'POST', path: '/questions', endpoint: ep, body: { question } });
  return parseSubmitted(res.json, ep);
}

export interface AgentMarket {
  formattedQuestion: string;
  shortQuestion: string;
  marketType: 'SUBJECTIVE' | 'OBJECTIVE';
  evidenceMode: 'social_only' | 'web_enabled';
  resolutionCriteria: string;
  /** "YYYY-MM-DD HH:MM:SS" */
  endTime: string;
  timezone?: string;
  sources?: string[];
  buckets?: unknown[];
  comparisons?: unknown[];
  explanation?: string;
}

/** POST /questions/agent-submit `{market}`. */
export async function agentSubmit(ctx: ClientContext, market: AgentMarket): Promise<QuestionSubmitted> {
  const ep = 'POST /questions/agent-submit';
  if (market === null || typeof market !== 'object') throw new BadInputError('market', 'an object', market);
  for (const k of ['formattedQuestion', 'shortQuestion', 'resolutionCriteria'] as const) {
    if (typeof market[k] !== 'string' || market[k].trim() === '') throw new BadInputError(`market.${k}`, 'a non-empty string', market[k]);
  }
  if (market.marketType !== 'SUBJECTIVE' && market.marketType !== 'OBJECTIVE')
    throw new BadInputError('market.marketType', 'SUBJECTIVE or OBJECTIVE', market.marketType);
  if (market.evidenceMode !== 'social_only' && market.evidenceMode !== 'web_enabled')
    throw new BadInputError('market.evidenceMode', 'social_only or web_enabled', market.evidenceMode);
  if (typeof market.endTime !== 'string' || !/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(market.endTime))
    throw new BadInputError('market.endTime', 'YYYY-MM-DD HH:MM:SS', market.endTime);
  const res = await ctx.t.request({ method: 'POST', path: '/questions/agent-submit', endpoint: ep, body: { market } });
  return parseSubmitted(res.json, ep);
}

function parseSubmission(json: unknown, a: At): Submission {
  const o = asObject(json, a);
  return {
    submissionId: nstr(o, 'submissionId', a),
    status: str(o, 'status', a),
    questions: arrIfPresent(o, 'questions', a, (v, qa) => {
      const q = asObject(v, qa);
      return { id: bytes32(q, 'id', qa), text: nstr(q, 'text', qa), shortText: nstr(q, 'shortText', qa), data: q };
    }),
    statusUpdates: arrIfPresent(o, 'statusUpdates', a, (v, ua) => asObject(v, ua)),
    rejectionReasons: arrIfPresent(o, 'rejectionReasons', a, (v, ra) => asObject(v, ra)),
    refuseToResolve: o.refuseToResolve === true,
    qualityExplanation: nstr(o, 'qualityExplanation', a),
  };
}

/** GET /questions/submissions/:id. */
export async function getSubmission(ctx: ClientContext, id: string): Promise<Submission> {
  const ep = 'GET /questions/submissions/:id';
  if (typeof id !== 'string' || id.length === 0 || id.length > 200) throw new BadInputError('id', 'a submission id', id);
  const res = await ctx.t.request({ method: 'GET', path: `/questions/submissions/${seg(id)}`, endpoint: ep });
  return parseSubmission(res.json, at(ep));
}

export interface WaitOptions {
  /** default 2000 */
  intervalMs?: number;
  /** default 45 */
  maxAttempts?: number;
}

/** Poll until `completed` (returned), `failed` (VenueError 422) or out of attempts (VenueError 408). */
export async function waitForSubmission(ctx: ClientContext, id: string, opts: WaitOptions = {}): Promise<Submission> {
  const ep = 'GET /questions/submissions/:id';
  const interval = opts.intervalMs ?? 2000;
  const max = opts.maxAttempts ?? 45;
  for (let i = 1; i <= max; i++) {
    const s = await getSubmission(ctx, id);
    if (s.status === 'completed') return s;
    if (s.status === 'failed') {
      const reason = s.rejectionReasons
        .map((r) => (typeof r.message === 'string' ? r.message : typeof r.reason === 'string' ? r.reason : ''))
        .filter(Boolean)
        .join('; ');
      throw new VenueError({
        status: 422,
        venueCode: 'submission_failed',
        message: reason || 'question submission failed',
        endpoint: ep,
        retryAfterMs: null,
        body: null,
      });
    }
    if (i < max) await ctx.sleep(interval);
  }
  throw new VenueError({
    status: 408,
    venueCode: 'submission_timeout',
    message: `submission not completed after ${max} polls`,
    endpoint: ep,
    retryAfterMs: null,
    body: null,
  });
}

/** POST /markets/create `{questionId}` → `{marketId, txHash}`. A 429 is the daily limit. */
export async function createMarket(ctx: ClientContext, questionId: Bytes32): Promise<{ marketId: Bytes32; txHash: Hex }> {
  const ep = 'POST /markets/create';
  const { o, a } = await requestObject(ctx, {
    method: 'POST',
    path: '/markets/create',
    endpoint: ep,
    body: { questionId: checkBytes32(questionId, 'questionId') },
  });
  return { marketId: bytes32(o, 'marketId', a), txHash: bytes32(o, 'txHash', a) };
}
