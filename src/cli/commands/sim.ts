/**
 * `bookmaker sim`: run the local exchange on a port until SIGINT/SIGTERM.
 * Prints `listening <base-url>` on stdout once it accepts requests (scripts wait for that line),
 * then, when no --api-key was given, one `demo-key` line per generated key with its throwaway
 * wallet and private key (demo wallets only; never real funds).
 */
import type { CommandSpec, ParsedArgs } from '../args.ts';
import { BadInputError } from '../../model/errors.ts';
import { createLocalExchange, type ApiKeySpec } from '../../sim/local-exchange.ts';
import { FAULT_PROFILE_NAMES } from '../../sim/faults.ts';
import { faultProfileFlag, faultProfileHelp } from './fault-profile-flag.ts';
import { ALL_PERMISSIONS, type Permission } from '../../sim/router.ts';
import { startCounterparties } from '../../sim/counterparties.ts';
import { installMigration } from '../../sim/migration/install.ts';

/** KEY[:WALLET[:PERMS]] with PERMS a comma or plus separated list (e.g. read,trade,can_create_markets). */
export function parseApiKeyFlag(text: string): ApiKeySpec {
  const [key, wallet, perms, ...rest] = text.split(':');
  if (!key || rest.length > 0) throw new BadInputError('--api-key', 'KEY[:WALLET[:PERMS]]', '[redacted]');
  const spec: ApiKeySpec = { key };
  if (wallet) {
    if (!/^0x[0-9a-fA-F]{40}$/.test(wallet)) throw new BadInputError('--api-key', 'a WALLET of 0x followed by 40 hex digits', wallet);
    spec.wallet = wallet;
  }
  if (perms) {
    const list = perms.split(/[,+]/).filter(Boolean);
    for (const p of list) if (!ALL_PERMISSIONS.includes(p as Permission)) throw new BadInputError('--api-key', `PERMS from ${ALL_PERMISSIONS.join(', ')}`, p);
    spec.perms = list as Permission[];
  }
  return spec;
}

function demoKeys(seed: number): ApiKeySpec[] {
  return [
    { key: `sim-demo-${seed}-maker`, perms: ['read', 'trade'] },
    { key: `sim-demo-${seed}-admin`, perms: ['read', 'trade', 'can_create_markets', 'admin'] },
  ];
}

const command: CommandSpec = {
  name: 'sim',
  summary: 'start the local exchange (HTTP + SSE) on a port',
  usage: 'bookmaker sim [--port 8787] [--seed 42] [--api-key KEY[:WALLET[:PERMS]]]... [--faults PROFILE] [--state FILE] [--no-agents]',
  description:
    'Serves the venue API under /v2 on 127.0.0.1 with real EIP-712 verification, simulated counterparties and optional fault injection. Prints "listening <base-url>" once ready. Without --api-key, demo keys with throwaway wallets are generated and printed.\n' +
    faultProfileHelp(),
  options: {
    port: { type: 'number', description: 'TCP port on 127.0.0.1 (0 = any free port)', default: 8787, arg: 'PORT' },
    seed: { type: 'number', description: 'seed of every simulated choice', default: 42, arg: 'N' },
    'api-key': { type: 'string', multiple: true, description: 'an API key, its wallet and permissions (repeatable)', arg: 'KEY[:WALLET[:PERMS]]' },
    faults: { type: 'string', description: `fault injection profile: ${FAULT_PROFILE_NAMES.join('|')} (default none)`, arg: 'PROFILE' },
    state: { type: 'string', description: 'state file: restored on start, saved on SIGTERM/SIGINT', arg: 'FILE' },
    agents: { type: 'boolean', description: 'run simulated counterparties (--no-agents to turn off)', default: true },
    markets: { type: 'number', description: 'demo markets on a fresh start', default: 4, arg: 'N' },
    'batch-limit': { type: 'number', description: 'most items per bulk call', default: 50, arg: 'N' },
  },
  async run(args: ParsedArgs) {
    const o = args.options;
    const port = o.port as number;
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new BadInputError('--port', 'an integer from 0 to 65535', port);
    const seed = o.seed as number;
    if (!Number.isSafeInteger(seed)) throw new BadInputError('--seed', 'an integer', seed);
    const faults = o.faults === undefined ? undefined : faultProfileFlag('--faults', o.faults as string, 'sim');
    const given = ((o['api-key'] as string[] | undefined) ?? []).map(parseApiKeyFlag);
    const keys = given.length ? given : demoKeys(seed);
    const ex = createLocalExchange({
      seed,
      apiKeys: keys,
      markets: o.markets as number,
      batchLimit: o['batch-limit'] as number,
      ...(faults ? { faults } : {}),
      ...(o.state ? { stateFile: o.state as string } : {}),
      onError: (e) => process.stderr.write(`sim: internal error: ${e instanceof Error ? e.message : String(e)}\n`),
    });
    // the migration rule and its data (restored from the state file when there is one); with demo
    // keys, one seeded legacy account shows the whole migration flow
    const { demoAccounts } = installMigration(ex.state, { demoLegacyAccounts: given.length ? 0 : 1 });
    const agents = o.agents ? startCounterparties(ex, { seed }) : undefined;
    const baseUrl = await ex.start(port);
    process.stdout.write(`listening ${baseUrl}\n`);
    if (!given.length) {
      for (const k of keys) {
        const rec = ex.state.keys.get(k.key)!;
        process.stdout.write(`demo-key ${rec.key} wallet ${rec.wallet} perms ${rec.perms.join(',')} private-key ${rec.privateKey ?? '-'}\n`);
      }
      for (const d of demoAccounts) process.stdout.write(`demo-legacy-wallet ${d.account.wallet} private-key ${d.privateKey}\n`);
    }
    await new Promise<void>((resolve) => {
      const stop = (): void => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    agents?.stop();
    await ex.close(); // saves the state file when one is set
    return 0;
  },
};
export default command;
