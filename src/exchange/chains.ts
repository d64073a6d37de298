/**
 * Chains, API bases and contract addresses (docs/venue.md#chains-and-contracts). Settlement V2 is the default.
 * A custom venue (the local exchange, a staging host) takes any base URL with either chain's contracts.
 */
import { mustAddress } from '../model/ids.ts';
import type { Address, NormalAddress } from '../model/order.ts';

export type ChainName = 'mainnet' | 'testnet';

export interface ChainConfig {
  name: ChainName;
  chainId: number;
  apiBase: string;
  settlementV2: Address;
  settlementV1: Address;
  holdingsNew: Address;
  holdingsLegacy: Address;
  usdc: Address;
  permit2: Address;
}

export const MAINNET: ChainConfig = {
  name: 'mainnet',
  chainId: 8453,
  apiBase: 'https://api.context.markets/v2',
  settlementV1: '0x000000000000aF25d425101A0C8e3adFB67BCfD0',
  settlementV2: '0x00000000008c286A2aaa99c6Be3b3D405A929500',
  holdingsLegacy: '0x0000000000001dDF1a31899d57ddAd89DE10ab1b',
  holdingsNew: '0x0000000000CcA5bC44912C63d63e1673FeE923f6',
  usdc: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  permit2: '0x000000000022D473030F116dDEE9F6B43aC78BA3',
};

export const TESTNET: ChainConfig = {
  name: 'testnet',
  chainId: 84532,
  apiBase: 'https://api-testnet.context.markets/v2',
  settlementV1: '0xD91935a82Af48ff79a68134d9Eab8fc9e5d3504D',
  settlementV2: '0xa9b830f4496b88c2d3C103fB96Df8f413031eBDD',
  holdingsLegacy: '0x0a6D61723E8AE8e34734A84075a1b58aB3eEca6a',
  holdingsNew: '0xBed9a1A6CB168D60aD2C7770Be6B62bD9244D6d3',
  usdc: '0xBbee2756d3169CF7065e5E9C4A5EA9b1D1Fd415e',
  permit2: '0x000000000022D473030F116dDEE9F6B43aC78BA3',
};

export const CHAINS: Record<ChainName, ChainConfig> = { mainnet: MAINNET, testnet: TESTNET };

type ContractName = 'settlementV2' | 'settlementV1' | 'holdingsNew' | 'holdingsLegacy' | 'usdc' | 'permit2';
const normalForms = new WeakMap<ChainConfig, Record<ContractName, NormalAddress>>();

/**
 * A chain's contract addresses in normal form (src/model/ids.ts), for comparing with addresses the
 * venue states (which enter normalised). The constants above keep their published EIP-55 spelling:
 * that is what signing, logs and the local exchange's answers use.
 */
export function chainAddresses(chain: ChainConfig): Readonly<Record<ContractName, NormalAddress>> {
  let n = normalForms.get(chain);
  if (n === undefined) {
    const of = (k: ContractName) => mustAddress(chain[k], `chain ${chain.name} ${k}`);
    n = {
      settlementV2: of('settlementV2'),
      settlementV1: of('settlementV1'),
      holdingsNew: of('holdingsNew'),
      holdingsLegacy: of('holdingsLegacy'),
      usdc: of('usdc'),
      permit2: of('permit2'),
    };
    normalForms.set(chain, n);
  }
  return n;
}

export function chainByName(name: string): ChainConfig {
  const c = CHAINS[name as ChainName];
  if (!c) throw new Error(`unknown chain '${name}': expected mainnet or testnet`);
  return c;
}
