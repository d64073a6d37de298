/**
 * Chooses the crypto implementations: native when the add-ons load, pure JS otherwise or on request
 * (`BOOKMAKER_PURE_JS=1`, or `pure: true`), so tests can check both give the same bytes.
 */
import { nativeKeccak256, pureKeccak256, type KeccakFn } from './keccak.ts';
import { nativeEcdsa, pureEcdsa, type Ecdsa } from './ecdsa.ts';

export interface BackendInfo {
  keccak: 'native' | 'pure';
  secp256k1: 'native' | 'pure';
}

export interface CryptoBackend {
  readonly info: BackendInfo;
  readonly keccak256: KeccakFn;
  readonly ecdsa: Ecdsa;
}

const PURE: CryptoBackend = Object.freeze({
  info: Object.freeze({ keccak: 'pure', secp256k1: 'pure' } as const),
  keccak256: pureKeccak256,
  ecdsa: pureEcdsa,
});

const BEST: CryptoBackend = Object.freeze({
  info: Object.freeze({ keccak: nativeKeccak256 ? 'native' : 'pure', secp256k1: nativeEcdsa ? 'native' : 'pure' } as const),
  keccak256: nativeKeccak256 ?? pureKeccak256,
  ecdsa: nativeEcdsa ?? pureEcdsa,
});

/** Is the pure-JS path forced by the environment? */
export function pureForcedByEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.BOOKMAKER_PURE_JS;
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

/** The backend to use: pure when asked (argument wins over env), else the fastest that loaded. */
export function cryptoBackend(opts: { pure?: boolean } = {}): CryptoBackend {
  const pure = opts.pure ?? pureForcedByEnv();
  return pure ? PURE : BEST;
}
