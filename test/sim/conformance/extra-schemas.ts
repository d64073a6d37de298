/**
 * Hand-written schemas for the endpoints the current spec no longer lists but the venue still serves
 * (docs/venue.md#endpoints: quotes, oracle quotes, deposit-with-permit). Draft-07, reusing the spec's
 * component definitions through `openapi#/definitions/...`.
 */
const num = { type: ['number', 'null'] };
const side = { type: 'object', required: ['bid', 'ask', 'last'], properties: { bid: num, ask: num, last: num } };
const hash32 = { type: 'string', pattern: '^0x[a-fA-F0-9]{64}$' };
const address = { type: 'string', pattern: '^0x[a-fA-F0-9]{40}$' };
const uint = { type: 'string', pattern: '^\\d+$' };

export const MARKET_QUOTES = {
  type: 'object',
  required: ['marketId', 'yes', 'no', 'spread', 'timestamp'],
  properties: { marketId: hash32, yes: side, no: side, spread: num, timestamp: { type: 'string' } },
};

export const ORACLE_QUOTE = {
  type: 'object',
  required: ['id', 'status', 'probability', 'confidence', 'reasoning', 'referenceMarketsCount', 'createdAt', 'completedAt'],
  properties: {
    id: { type: ['string', 'number'] },
    status: { enum: ['pending', 'processing', 'completed', 'failed'] },
    probability: num,
    confidence: { enum: ['low', 'medium', 'high', null] },
    reasoning: { type: ['string', 'null'] },
    referenceMarketsCount: { type: 'number' },
    createdAt: { type: 'string' },
    completedAt: { type: ['string', 'null'] },
  },
};

export const ORACLE_QUOTE_LIST = { type: 'object', required: ['quotes'], properties: { quotes: { type: 'array', items: ORACLE_QUOTE } } };

export const ORACLE_QUOTE_LATEST = { type: 'object', required: ['quote'], properties: { quote: { anyOf: [{ type: 'null' }, ORACLE_QUOTE] } } };

export const ORACLE_QUOTE_REQUESTED = {
  type: 'object',
  required: ['id', 'status', 'createdAt'],
  properties: { id: { type: ['string', 'number'] }, status: { enum: ['pending', 'processing', 'completed', 'failed'] }, createdAt: { type: 'string' } },
};

export const DEPOSIT_WITH_PERMIT = {
  type: 'object',
  required: ['success', 'txHash', 'user', 'token', 'amount', 'relayer'],
  properties: { success: { const: true }, txHash: hash32, user: address, token: address, amount: uint, relayer: address },
};

/** Error bodies everywhere: the spec's PublicApiError. */
export const PUBLIC_API_ERROR = { $ref: 'openapi#/definitions/PublicApiError' };
