/**
 * EIP-712 domain separators (docs/venue.md#eip-712-domains-and-structs), computed once per chain object and cached.
 */
import type { ChainConfig } from '../chains.ts';
import type { Address } from '../../model/order.ts';
import { pureKeccak256 } from './keccak.ts';
import { TYPE_HASHES } from './typeHashes.ts';
import { writeAddress, writeUint256 } from './words.ts';

export interface DomainFields {
  name: string;
  /** Omitted for Permit2, whose domain type has no version field. */
  version?: string;
  chainId: number;
  verifyingContract: Address;
}

/** hashStruct(EIP712Domain) for the given fields. */
export function domainSeparator(d: DomainFields): Buffer {
  const words = d.version === undefined ? 4 : 5;
  const buf = Buffer.alloc(words * 32);
  TYPE_HASHES[d.version === undefined ? 'EIP712DomainNoVersion' : 'EIP712Domain'].copy(buf, 0);
  let off = 32;
  buf.set(pureKeccak256(Buffer.from(d.name, 'utf8')), off);
  off += 32;
  if (d.version !== undefined) {
    buf.set(pureKeccak256(Buffer.from(d.version, 'utf8')), off);
    off += 32;
  }
  writeUint256(buf, off, BigInt(d.chainId));
  writeAddress(buf, off + 32, d.verifyingContract);
  return Buffer.from(pureKeccak256(buf));
}

/** The five domains the bot signs on, per chain. */
export interface ChainDomains {
  settlementV2: DomainFields;
  settlementV1: DomainFields;
  holdingsNew: DomainFields;
  holdingsLegacy: DomainFields;
  permit2: DomainFields;
}

export type DomainName = keyof ChainDomains;

export function chainDomains(chain: ChainConfig): ChainDomains {
  const chainId = chain.chainId;
  return {
    settlementV2: { name: 'Settlement', version: '2', chainId, verifyingContract: chain.settlementV2 },
    settlementV1: { name: 'Settlement', version: '1', chainId, verifyingContract: chain.settlementV1 },
    holdingsNew: { name: 'Holdings', version: '1', chainId, verifyingContract: chain.holdingsNew },
    holdingsLegacy: { name: 'Holdings', version: '1', chainId, verifyingContract: chain.holdingsLegacy },
    permit2: { name: 'Permit2', chainId, verifyingContract: chain.permit2 },
  };
}

const cache = new WeakMap<ChainConfig, Readonly<Record<DomainName, Buffer>>>();

/** Separators of all five domains of a chain (cached on the chain object; never mutate them). */
export function domainSeparators(chain: ChainConfig): Readonly<Record<DomainName, Buffer>> {
  let s = cache.get(chain);
  if (!s) {
    const d = chainDomains(chain);
    s = Object.freeze({
      settlementV2: domainSeparator(d.settlementV2),
      settlementV1: domainSeparator(d.settlementV1),
      holdingsNew: domainSeparator(d.holdingsNew),
      holdingsLegacy: domainSeparator(d.holdingsLegacy),
      permit2: domainSeparator(d.permit2),
    });
    cache.set(chain, s);
  }
  return s;
}
