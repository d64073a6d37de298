/**
 * `bookmaker sign order JSON|-` and `bookmaker sign cancel NONCE...`: sign without sending, and print
 * the POST /orders body (one object, or an array for an array) or the cancel body as JSON (docs/architecture.md#stable-interfaces).
 */
import type { CommandSpec, ParsedArgs } from '../args.ts';
import { BadInputError } from '../../model/errors.ts';
import type { CancelBody, LimitOrderBody } from '../../model/order.ts';
import { chainByName } from '../../exchange/chains.ts';
import { createSigner, type Signer } from '../../exchange/signing/signer.ts';
import { parseOrderInput } from '../../exchange/signing/orderInput.ts';
import { assertBytes32 } from '../../exchange/signing/hex.ts';
import { loadPrivateKey } from '../../config/secrets.ts';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : c);
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new BadInputError('order', 'JSON (an order object or an array of them)', text.trim().slice(0, 60), { cause: e });
  }
}

/** Sign the order (or array of orders) in `json`; every order is checked before any is signed. */
export function signOrdersJson(json: unknown, signer: Signer, nowSec: number): LimitOrderBody | LimitOrderBody[] {
  const many = Array.isArray(json);
  const list = many ? json : [json];
  if (many && list.length === 0) throw new BadInputError('orders', 'at least one order', json);
  const parsed = list.map((o, i) => parseOrderInput(o, nowSec, many ? `orders[${i}].` : ''));
  const bodies = parsed.map((p) => (p.kind === 'market' ? signer.signMarketOrder(p.order, nowSec) : signer.signOrder(p.order, nowSec)));
  return many ? bodies : bodies[0]!;
}

export function signCancels(nonces: readonly string[], signer: Signer): CancelBody | CancelBody[] {
  if (nonces.length === 0) throw new BadInputError('NONCE', 'at least one order nonce (0x + 64 hex)', undefined);
  const bodies = nonces.map((n, i) => signer.signCancel(assertBytes32(n, nonces.length > 1 ? `nonce[${i}]` : 'nonce')));
  return bodies.length === 1 ? bodies[0]! : bodies;
}

async function run(args: ParsedArgs): Promise<number> {
  const [sub, ...rest] = args.positionals;
  if (sub !== 'order' && sub !== 'cancel') throw new BadInputError('subcommand', '"order" or "cancel"', sub);
  const chain = chainByName(String(args.options.chain ?? 'mainnet'));
  const keyFile = args.options['key-file'] as string | undefined;
  const signer = createSigner({ privateKey: loadPrivateKey(keyFile ? { keyFile } : {}), chain });
  let out: unknown;
  if (sub === 'order') {
    if (rest.length !== 1) throw new BadInputError('order', "one JSON argument, or '-' to read it from stdin", rest.join(' ') || undefined);
    const text = rest[0] === '-' ? await readStdin() : rest[0]!;
    out = signOrdersJson(parseJson(text), signer, Math.floor(Date.now() / 1000));
  } else {
    out = signCancels(rest, signer);
  }
  process.stdout.write(JSON.stringify(out, null, args.options.compact ? undefined : 2) + '\n');
  return 0;
}

const command: CommandSpec = {
  name: 'sign',
  summary: 'sign orders or cancels and print the request body without sending it',
  usage: 'bookmaker sign order JSON|-  |  bookmaker sign cancel NONCE...',
  description: [
    'order: JSON is one order or an array ("-" reads it from stdin). Prints the signed POST /orders body',
    '(an array for an array). Two forms are accepted:',
    '  high-level {"marketId", "outcome":"yes"|"no", "side":"buy"|"sell", "priceCents", "size" (shares),',
    '             "inventoryMode":"any"|"hold"|"mint", "timeInForce":"gtc"|"ioc"|"fok", "buyValue" (USD),',
    '             "maxFee" (1e-6 USDC), "expiry" (unix s) | "expirySeconds", "nonce", "type":"limit"|"market"}',
    '  raw        {"marketId", "outcomeIndex":0|1, "side":0|1, "price" (1e-6 USDC), "size" (1e-6 shares), ...}',
    'A market order ("type":"market") is an IOC limit at priceCents as the worst price; a buy needs buyValue.',
    'Defaults: maxFee 1% of notional, expiry now + 365 days, a fresh random nonce.',
    'cancel: prints the signed {trader, nonce, signature} for each nonce.',
    'The private key comes from BOOKMAKER_PRIVATE_KEY or --key-file (mode 0600/0400, or 0640/0440 owned by root).',
  ].join('\n'),
  positionals: ['order JSON|-', 'cancel NONCE...'],
  options: {
    chain: { type: 'string', choices: ['mainnet', 'testnet'], default: 'mainnet', description: 'chain whose contracts sign the order', arg: 'NAME' },
    'key-file': { type: 'string', description: 'file holding the private key (hex); default: BOOKMAKER_PRIVATE_KEY', arg: 'FILE' },
    compact: { type: 'boolean', description: 'print one-line JSON' },
  },
  run,
};
export default command;
