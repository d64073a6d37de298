/**
 * What the local exchange writes to its journal, and how it replays it.
 *
 * A journal record is the smallest input that reproduces a change exactly, given the state before
 * it (the exchange is deterministic once its clock is pinned):
 * - `req`: a mutating HTTP request that reached its handler: method, path, query, the raw body text,
 *   the caller's key (by a hash, plus its wallet and permissions; never the token) and the time.
 *   Replay runs the same handler on the same input at the same time.
 * - `host`: an engine command issued outside any request (the counterparties, the expiry sweep).
 * - `svc`: an exchange service called outside any request (a simulated resolution, a generated
 *   market, an oracle update).
 * Changes made inside a request or a service are covered by its record and not written again.
 *
 * The clock is pinned for the length of a request or a timer tick, so every timestamp a change
 * stores is the record's time, live and in replay alike.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../../core/clock.ts';
import type { ApiKeyRecord } from '../records.ts';
import type { HostLogEntry } from '../engine-host.ts';
import type { Permission } from '../records.ts';
import { encodeJson, type DurableFiles, type JournalRecord } from './durable-files.ts';

export interface RequestRecord extends JournalRecord {
  k: 'req';
  t: number;
  m: string;
  p: string;
  q: string;
  b: string;
  /** key: id (hash of the token), wallet, permissions */
  key: [string, string, Permission[]] | null;
  /** the Host header, when the handler may use it */
  h?: string;
}

export interface HostRecord extends JournalRecord {
  k: 'host';
  t: number;
  e: HostLogEntry;
}

export interface ServiceRecord extends JournalRecord {
  k: 'svc';
  t: number;
  n: string;
  a: unknown[];
}

/** A stable id of an API key for the journal (not the token). */
export function keyId(token: string): string {
  return createHash('sha256').update(`bookmaker-sim-key:${token}`).digest('hex').slice(0, 24);
}

export class ExchangeJournal {
  /** the journal files (only with a state file) */
  files: DurableFiles | undefined;
  /** nonzero inside a request or a service: nested changes are covered by its record */
  private scope = 0;
  private pinned: number | undefined;
  /** replaying records at start-up: nothing is written */
  replaying = false;
  private readonly ids = new WeakMap<ApiKeyRecord, string>();
  readonly clock: Clock;

  constructor(base: Clock) {
    this.clock = {
      now: () => this.pinned ?? base.now(),
      scheduler: base.scheduler,
      setTimeout: (fn, ms) => base.setTimeout(fn, ms),
    };
  }

  /** Appending records now (a state file, started, not replaying). */
  get writing(): boolean {
    return !this.replaying && this.files !== undefined && this.files.isOpen;
  }

  get failed(): Error | undefined {
    return this.files?.failed;
  }

  /** Pin the clock (outermost call wins) for a request or a timer tick. */
  pin(now: number): void {
    if (this.pinned === undefined) this.pinned = now;
  }

  unpin(): void {
    if (this.scope === 0) this.pinned = undefined;
  }

  /** Enter a request or a service: nested changes are covered by its record. */
  enter(now: number): void {
    this.pin(now);
    this.scope++;
  }

  exit(): void {
    this.scope--;
    if (this.scope === 0) this.pinned = undefined;
  }

  get inScope(): boolean {
    return this.scope > 0;
  }

  keyRef(key: ApiKeyRecord | undefined): RequestRecord['key'] {
    if (!key) return null;
    let id = this.ids.get(key);
    if (id === undefined) {
      id = keyId(key.key);
      this.ids.set(key, id);
    }
    return [id, key.wallet, key.perms];
  }

  /** An engine command outside any request or service. */
  host(e: HostLogEntry): void {
    if (this.scope > 0 || !this.writing) return;
    this.files!.append(encodeJson({ k: 'host', t: this.clock.now(), e }));
  }

  /**
   * Run a service: outside any request it is written as one record (its nested changes are not);
   * inside one, it is part of the request's record.
   */
  service<T>(name: string, args: unknown[], fn: () => T): T {
    if (this.scope > 0 || !this.writing) return fn();
    const now = this.clock.now();
    this.enter(now);
    try {
      return fn();
    } finally {
      this.exit();
      this.files!.append(encodeJson({ k: 'svc', t: now, n: name, a: args }));
    }
  }

  /** A request that reached its handler; returns the seq to wait for before answering. */
  request(method: string, path: string, query: string, body: string, key: ApiKeyRecord | undefined, now: number, host: string | undefined): number {
    const rec: Omit<RequestRecord, 's'> = { k: 'req', t: now, m: method, p: path, q: query, b: body, key: this.keyRef(key) };
    if (host !== undefined) rec.h = host;
    return this.files!.append(JSON.stringify(rec));
  }

  durable(seq: number): Promise<void> {
    return this.files ? this.files.durable(seq) : Promise.resolve();
  }
}
