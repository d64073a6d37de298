/**
 * `bookmaker sim`: run the local exchange on a port until SIGINT/SIGTERM.
 * Prints `listening <base-url>` on stdout once it accepts requests (scripts wait for that line),
 * then, when no --api-key was given, one `demo-key` line per generated key with its throwaway
 * wallet and private key (demo wallets only; never real funds), all in one write: a script that saw
 * the listening line finds the keys after it.
 */
import { FLOW_PRESETS, isFlowPreset } from '../../sim/flow-presets.ts';
import type { CommandSpec, ParsedArgs } from '../args.ts';
import { BadInputError } from '../../model/errors.ts';
import { createLocalExchange, type ApiKeySpec } from '../../sim/local-exchange.ts';
import { FAULT_PROFILE_NAMES } from '../../sim/faults.ts';
import { faultProfileFlag, faultProfileHelp } from './fault-profile-flag.ts';
import { ALL_PERMISSIONS } from '../../sim/router.ts';
import type { Permission } from '../../sim/records.ts';
import { startCounterparties } from '../../sim/counterparties.ts';
import { churnOptions, DEFAULT_SETTLE_OUTSIDE, startMarketChurn } from '../../sim/market-churn.ts';
import { autoClaimAfterMs, startAutoClaim } from '../../sim/auto-claim.ts';
import { installMigration } from '../../sim/migration/install.ts';
import { chainByName } from '../../exchange/chains.ts';
import { registerSecret } from '../../core/logger.ts';

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

const YEAR_SECONDS = 365 * 86_400;

/** --new-market-every, --market-lifetime, --resolution-delay, --max-live-markets, --settle-outside → the churn's settings (seconds). */
export function parseChurnFlags(o: ParsedArgs['options']): {
  newMarketEverySeconds: number;
  marketLifetimeSeconds: number;
  resolutionDelaySeconds: number | null;
  maxLiveMarkets: number;
  settleOutside: number;
} {
  const every = o['new-market-every'] as number;
  if (!Number.isFinite(every) || every < 0 || every > YEAR_SECONDS)
    throw new BadInputError('--new-market-every', 'a number of seconds from 0 (none) to a year', every);
  const life = o['market-lifetime'] as number;
  if (!Number.isFinite(life) || life < 0.001 || life > YEAR_SECONDS)
    throw new BadInputError('--market-lifetime', 'a number of seconds from 0.001 to a year', life);
  const delayRaw = o['resolution-delay'];
  let delay: number | null = null;
  if (delayRaw !== undefined) {
    delay = delayRaw as number;
    if (!Number.isFinite(delay) || delay < 0 || delay > YEAR_SECONDS)
      throw new BadInputError('--resolution-delay', 'a number of seconds from 0 to a year', delay);
  }
  const cap = o['max-live-markets'] as number;
  if (!Number.isSafeInteger(cap) || cap < 0 || cap > 100_000) throw new BadInputError('--max-live-markets', 'an integer from 0 (no cap) to 100000', cap);
  const settle = (o['settle-outside'] as number | undefined) ?? DEFAULT_SETTLE_OUTSIDE;
  if (!Number.isFinite(settle) || settle < 0 || settle >= 0.5) throw new BadInputError('--settle-outside', 'a probability from 0 (never) to below 0.5', settle);
  return { newMarketEverySeconds: every, marketLifetimeSeconds: life, resolutionDelaySeconds: delay, maxLiveMarkets: cap, settleOutside: settle };
}

/** --auto-claim-after SECONDS → seconds from a resolution to the auto-claim, or null (off, the default). */
export function parseAutoClaimFlag(o: ParsedArgs['options']): number | null {
  const raw = o['auto-claim-after'];
  if (raw === undefined) return null;
  const s = raw as number;
  if (!Number.isFinite(s) || s < 0 || s > YEAR_SECONDS) throw new BadInputError('--auto-claim-after', 'a number of seconds from 0 to a year', s);
  return s;
}

const command: CommandSpec = {
  name: 'sim',
  summary: 'start the local exchange (HTTP + SSE) on a port',
  usage:
    'bookmaker sim [--port 8787] [--seed 42] [--chain mainnet|testnet] [--api-key KEY[:WALLET[:PERMS]]]... [--faults PROFILE] [--state FILE] [--no-agents] [--new-market-every SECONDS] [--market-lifetime SECONDS] [--resolution-delay SECONDS] [--max-live-markets N] [--settle-outside P] [--auto-claim-after SECONDS] [--flow benign|calibrated|toxic]',
  description:
    'Serves the venue API under /v2 on 127.0.0.1 with real EIP-712 verification, simulated counterparties and optional fault injection. Prints "listening <base-url>" once ready. Without --api-key, demo keys with throwaway wallets are generated and printed.\n' +
    faultProfileHelp(),
  options: {
    port: { type: 'number', description: 'TCP port on 127.0.0.1 (0 = any free port)', default: 8787, arg: 'PORT' },
    seed: { type: 'number', description: 'seed of every simulated choice', default: 42, arg: 'N' },
    chain: {
      type: 'string',
      choices: ['mainnet', 'testnet'],
      default: 'mainnet',
      description:
        'chain whose EIP-712 domains signatures are verified against and whose chainId markets report (default mainnet, as `bookmaker sign` and `bookmaker run --base-url`)',
      arg: 'NAME',
    },
    'api-key': { type: 'string', multiple: true, description: 'an API key, its wallet and permissions (repeatable)', arg: 'KEY[:WALLET[:PERMS]]' },
    faults: { type: 'string', description: `fault injection profile: ${FAULT_PROFILE_NAMES.join('|')} (default none)`, arg: 'PROFILE' },
    state: {
      type: 'string',
      description: 'state file: restored on start; every acknowledged change is journalled (FILE.wal.N) before its answer; snapshot on SIGHUP and on stop',
      arg: 'FILE',
    },
    agents: { type: 'boolean', description: 'run simulated counterparties (--no-agents to turn off)', default: true },
    markets: { type: 'number', description: 'demo markets on a fresh start', default: 4, arg: 'N' },
    'batch-limit': { type: 'number', description: 'most items per bulk call', default: 50, arg: 'N' },
    'new-market-every': { type: 'number', description: 'create a generated market every SECONDS (0 = none)', default: 0, arg: 'SECONDS' },
    'market-lifetime': { type: 'number', description: 'a generated market trades this long, then closes at its deadline', default: 1800, arg: 'SECONDS' },
    'resolution-delay': {
      type: 'number',
      description: 'from a deadline (closed, resolution pending) to the resolution (default a tenth of the lifetime, at most 60)',
      arg: 'SECONDS',
    },
    'max-live-markets': { type: 'number', description: 'no new market while this many generated markets are active (0 = no cap)', default: 0, arg: 'N' },
    'settle-outside': {
      type: 'number',
      description: 'resolve an active market at once when its hidden fair value is within P of 0 or 1 (as the synthetic backtest; 0 = never)',
      default: DEFAULT_SETTLE_OUTSIDE,
      arg: 'P',
    },
    'auto-claim-after': {
      type: 'number',
      description:
        "the venue's auto-claim: SECONDS after a market resolves, every wallet's tokens in it are redeemed at the payout " +
        '(claimState autoclaimed; default off: positions stay claimable)',
      arg: 'SECONDS',
    },
    flow: {
      type: 'string',
      choices: [...FLOW_PRESETS],
      default: 'benign',
      description: 'counterparty flow preset: benign (default), calibrated (fitted to the Polymarket capture) or toxic (news picked off at once); docs/edge.md',
      arg: 'PRESET',
    },
  },
  async run(args: ParsedArgs) {
    const o = args.options;
    const port = o.port as number;
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new BadInputError('--port', 'an integer from 0 to 65535', port);
    const seed = o.seed as number;
    if (!Number.isSafeInteger(seed)) throw new BadInputError('--seed', 'an integer', seed);
    const churnSeconds = parseChurnFlags(o);
    const autoClaimAfter = parseAutoClaimFlag(o);
    const flow = o.flow ?? 'benign';
    if (!isFlowPreset(flow)) throw new BadInputError('--flow', `one of ${FLOW_PRESETS.join(', ')}`, flow);
    const faults = o.faults === undefined ? undefined : faultProfileFlag('--faults', o.faults as string, 'sim');
    const given = ((o['api-key'] as string[] | undefined) ?? []).map(parseApiKeyFlag);
    const keys = given.length ? given : demoKeys(seed);
    // signals first: a SIGTERM that arrives while starting up still stops cleanly (state saved)
    let stopRequested = false;
    let wake: (() => void) | undefined;
    const stop = (): void => {
      stopRequested = true;
      wake?.();
    };
    let ex: ReturnType<typeof createLocalExchange> | undefined;
    const hup = (): void => {
      ex?.save().then(
        () => process.stderr.write('sim: state saved (SIGHUP)\n'),
        (e: unknown) => process.stderr.write(`sim: saving state failed: ${e instanceof Error ? e.message : String(e)}\n`),
      );
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    process.on('SIGHUP', hup);
    try {
      ex = createLocalExchange({
        seed,
        chain: chainByName(String(o.chain ?? 'mainnet')),
        apiKeys: keys,
        markets: o.markets as number,
        batchLimit: o['batch-limit'] as number,
        ...(faults ? { faults } : {}),
        ...(o.state ? { stateFile: o.state as string } : {}),
        onError: (e) => process.stderr.write(`sim: internal error: ${e instanceof Error ? e.message : String(e)}\n`),
        onWarning: (m) => process.stderr.write(`sim: warning: ${m}\n`),
      });
      // the migration rule and its data (restored from the state file when there is one); with demo
      // keys, one seeded legacy account shows the whole migration flow
      const { demoAccounts } = installMigration(ex.state, { demoLegacyAccounts: given.length ? 0 : 1 });
      // a demo key for each seeded legacy wallet, so the migration's 409 trading block and the whole
      // flow can be driven with the wallet's own key (read + trade; not funded: its funds are legacy)
      const legacyKeys = demoAccounts.map((d, i) => {
        const rec = { key: `sim-demo-${seed}-legacy${i ? `-${i + 1}` : ''}`, wallet: d.account.wallet, perms: ['read', 'trade'] as Permission[] };
        registerSecret(rec.key);
        ex!.state.keys.set(rec.key, rec);
        return { ...rec, privateKey: d.privateKey };
      });
      // deadlines are kept (closed, then resolved) with or without new markets and agents
      const churn = startMarketChurn(ex, churnOptions(seed, churnSeconds));
      // the venue's auto-claim of resolved positions (off unless --auto-claim-after is given)
      const autoClaimMs = autoClaimAfterMs(autoClaimAfter);
      if (autoClaimMs !== null) startAutoClaim(ex, { afterMs: autoClaimMs });
      const agents = o.agents ? startCounterparties(ex, { seed, churn, flow }) : undefined;
      const baseUrl = await ex.start(port);
      if (!stopRequested) {
        // the listening line and the demo keys in one write: a script that saw `listening` in the output reads
        // the keys too (written one by one, a reader on a loaded machine could find the first line alone)
        const ready = [`listening ${baseUrl}\n`];
        if (churn.settings.newMarketEveryMs > 0) {
          const c = churn.settings;
          process.stderr.write(
            `sim: a new market every ${c.newMarketEveryMs / 1000} s, trading ${c.lifetimeMs / 1000} s, resolved ${c.resolutionDelayMs / 1000} s after its deadline${c.maxLiveMarkets ? `, at most ${c.maxLiveMarkets} live` : ''}\n`,
          );
        }
        if (autoClaimMs !== null)
          process.stderr.write(`sim: resolved positions are auto-claimed ${autoClaimMs / 1000} s after the resolution (claimState autoclaimed)\n`);
        if (agents && churn.settings.settleOutside > 0)
          process.stderr.write(
            `sim: a market whose fair value comes within ${churn.settings.settleOutside} of 0 or 1 resolves at once (--settle-outside 0: never)\n`,
          );
        if (!given.length) {
          for (const k of keys) {
            const rec = ex.state.keys.get(k.key)!;
            ready.push(`demo-key ${rec.key} wallet ${rec.wallet} perms ${rec.perms.join(',')} private-key ${rec.privateKey ?? '-'}\n`);
          }
          for (const d of demoAccounts) ready.push(`demo-legacy-wallet ${d.account.wallet} private-key ${d.privateKey}\n`);
          for (const k of legacyKeys) ready.push(`demo-key ${k.key} wallet ${k.wallet} perms ${k.perms.join(',')} private-key ${k.privateKey}\n`);
        }
        process.stdout.write(ready.join(''));
        await new Promise<void>((resolve) => {
          wake = resolve;
          if (stopRequested) resolve();
        });
      }
      agents?.stop();
      await ex.close(); // a last snapshot when a state file is set
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      process.off('SIGHUP', hup);
    }
    return 0;
  },
};
export default command;
