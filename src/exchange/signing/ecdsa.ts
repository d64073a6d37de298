/**
 * secp256k1 ECDSA over 32-byte digests, native (libsecp256k1 via the `secp256k1` package) or pure JS
 * (@noble/curves, as viem uses). Both use RFC 6979 deterministic nonces with no extra entropy and
 * low-s normalisation, so they produce the same bytes as viem's signTypedData.
 */
import { createRequire } from 'node:module';
import { secp256k1 } from '@noble/curves/secp256k1';

export interface Ecdsa {
  readonly name: 'native' | 'pure';
  /** Is this 32-byte scalar a valid private key (0 < k < n)? */
  isValidPrivateKey(key: Uint8Array): boolean;
  /** Uncompressed public key without the 0x04 prefix: 64 bytes x‖y. */
  publicKey(key: Uint8Array): Uint8Array;
  /** Write r‖s (64 bytes) into out[0..64) and return the recovery id (0 or 1). */
  sign(digest: Uint8Array, key: Uint8Array, out: Uint8Array): number;
  /** Public key (64 bytes x‖y) from r‖s, recovery id and digest; throws on an invalid signature. */
  recover(digest: Uint8Array, rs: Uint8Array, recid: number): Uint8Array;
}

interface NativeSecp {
  privateKeyVerify(key: Uint8Array): boolean;
  publicKeyCreate(key: Uint8Array, compressed?: boolean): Uint8Array;
  ecdsaSign(msg: Uint8Array, key: Uint8Array, options?: object, output?: Uint8Array): { signature: Uint8Array; recid: number };
  ecdsaRecover(sig: Uint8Array, recid: number, msg: Uint8Array, compressed?: boolean): Uint8Array;
}

export const pureEcdsa: Ecdsa = {
  name: 'pure',
  isValidPrivateKey: (key) => key.length === 32 && secp256k1.utils.isValidPrivateKey(key),
  publicKey: (key) => secp256k1.getPublicKey(key, false).subarray(1),
  sign(digest, key, out) {
    // lowS and no extraEntropy: exactly viem's call, hence RFC 6979 and identical bytes.
    const sig = secp256k1.sign(digest, key, { lowS: true, extraEntropy: false });
    out.set(sig.toCompactRawBytes(), 0);
    return sig.recovery;
  },
  recover(digest, rs, recid) {
    const sig = secp256k1.Signature.fromCompact(rs).addRecoveryBit(recid);
    return sig.recoverPublicKey(digest).toRawBytes(false).subarray(1);
  },
};

function loadNativeEcdsa(): Ecdsa | null {
  try {
    // `secp256k1/bindings` throws when the add-on is missing (the package's main entry would
    // silently fall back to elliptic, which we do not want to mistake for native).
    const lib = createRequire(import.meta.url)('secp256k1/bindings') as NativeSecp;
    const noOptions = {};
    return {
      name: 'native',
      isValidPrivateKey: (key) => key.length === 32 && lib.privateKeyVerify(key),
      publicKey: (key) => lib.publicKeyCreate(key, false).subarray(1),
      sign(digest, key, out) {
        // libsecp256k1 signs with RFC 6979 and always returns a low-s signature.
        return lib.ecdsaSign(digest, key, noOptions, out.subarray(0, 64)).recid;
      },
      recover: (digest, rs, recid) => lib.ecdsaRecover(rs, recid, digest, false).subarray(1),
    };
  } catch {
    return null;
  }
}

/** The native ECDSA, or null when the add-on does not load on this machine. */
export const nativeEcdsa: Ecdsa | null = loadNativeEcdsa();
