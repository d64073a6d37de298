/**
 * Replay of journal records at start-up (see ./exchange-journal.ts for what each kind holds). A
 * record runs exactly as it ran live: same handler or command, same input, the clock pinned to the
 * record's time. Its outcome is not checked again: a refusal live is the same refusal now.
 * A record this exchange cannot interpret (an unknown kind, route or service) stops the restore.
 */
import type { ExchangeState, RequestContext } from '../context.ts';
import type { EngineHost, HostLogEntry } from '../engine-host.ts';
import { HttpError } from '../http-errors.ts';
import type { ApiKeyRecord } from '../records.ts';
import type { Router } from '../router.ts';
import type { JournalRecord } from './durable-files.ts';
import { keyId, type ExchangeJournal, type RequestRecord } from './exchange-journal.ts';

export interface ReplayDeps {
  state: ExchangeState;
  router: Router;
  journal: ExchangeJournal;
  host: EngineHost;
}

const SERVICES = ['addMarket', 'resolveMarket', 'closeMarket', 'oracleUpdate', 'claimPosition'] as const;

let journalName = '';

function unreadable(rec: JournalRecord, why: string): Error {
  return new Error(`journal ${journalName}: record seq ${rec.s}: ${why}; refusing to start (the files are left as they are)`);
}

let keyCache: { size: number; state: ExchangeState | undefined; byId: Map<string, ApiKeyRecord> } = { size: -1, state: undefined, byId: new Map() };

function keyById(state: ExchangeState, id: string): ApiKeyRecord | undefined {
  if (keyCache.state !== state || keyCache.size !== state.keys.size) {
    const byId = new Map<string, ApiKeyRecord>();
    for (const k of state.keys.values()) byId.set(keyId(k.key), k);
    keyCache = { size: state.keys.size, state, byId };
  }
  return keyCache.byId.get(id);
}

export function replayRecord(rec: JournalRecord, deps: ReplayDeps): void {
  const { state, router, journal, host } = deps;
  journalName = journal.files ? `${journal.files.file}.wal.*` : '';
  const t = rec.t;
  if (typeof t !== 'number' || !Number.isFinite(t)) throw unreadable(rec, 'no time');
  switch (rec.k) {
    case 'req': {
      const r = rec as RequestRecord;
      const found = router.lookup(r.m, r.p);
      if (!found.ok) throw unreadable(rec, `no route ${r.m} ${r.p}`);
      let key: ApiKeyRecord | undefined;
      if (r.key) key = keyById(state, r.key[0]) ?? { key: '', wallet: r.key[1] as ApiKeyRecord['wallet'], perms: r.key[2] };
      let body: unknown;
      if (r.b) {
        try {
          body = JSON.parse(r.b);
        } catch {
          body = undefined; // the live request got a 400 before its handler; never journalled
        }
      }
      const ctx: RequestContext = {
        method: r.m,
        path: r.p,
        params: found.match.params,
        query: new URLSearchParams(r.q),
        body,
        headers: r.h !== undefined ? { host: r.h } : {},
        key,
        state,
        now: t,
        req: undefined as never,
        res: undefined as never,
      };
      journal.enter(t);
      try {
        const out = found.match.route.handler(ctx);
        if (out && typeof (out as Promise<unknown>).then === 'function') throw unreadable(rec, `route ${r.m} ${r.p} is asynchronous`);
      } catch (e) {
        if (!(e instanceof HttpError)) throw e;
      } finally {
        journal.exit();
      }
      return;
    }
    case 'host': {
      journal.pin(t);
      try {
        host.replayEntry(rec.e as HostLogEntry);
      } finally {
        journal.unpin();
      }
      return;
    }
    case 'svc': {
      const name = rec.n as (typeof SERVICES)[number];
      const args = rec.a as unknown[];
      if (!SERVICES.includes(name) || !Array.isArray(args)) throw unreadable(rec, `unknown service ${String(rec.n)}`);
      journal.pin(t);
      try {
        (state.services[name] as (...a: unknown[]) => unknown)(...args);
      } catch (e) {
        if (!(e instanceof HttpError)) throw e;
      } finally {
        journal.unpin();
      }
      return;
    }
    default:
      throw unreadable(rec, `unknown record kind '${rec.k}'`);
  }
}
