/**
 * Where a running bot says which admin port it is bound to: a small file beside its
 * config, `.bookmaker/<config name>.admin.json` (`{ pid, port, configFile, startedAt }`, mode 0600),
 * written once the endpoint listens and removed at stop. A reload never moves the endpoint, so after
 * a reload that changed `admin.port` the file's port is still the bot's; `ctl -c FILE` reads it when
 * it names a live process, and checks the bot's identity there as anywhere.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { makeFolders } from '../core/make-folders.ts';
import { processAlive } from '../core/process-alive.ts';

export interface AdminState {
  readonly pid: number;
  readonly port: number;
  readonly configFile: string;
  readonly startedAt: string;
}

export function adminStatePath(configFile: string): string {
  return join(dirname(configFile), '.bookmaker', `${basename(configFile, extname(configFile))}.admin.json`);
}

/** Write the bound port; returns a remover (only this process's record is removed), or throws. */
export function writeAdminState(configFile: string, s: AdminState): () => void {
  const p = adminStatePath(configFile);
  makeFolders(dirname(p));
  writeFileSync(p, JSON.stringify(s) + '\n', { mode: 0o600 });
  return () => {
    if (readAdminState(configFile)?.pid === s.pid) rmSync(p, { force: true });
  };
}

/** The record of a live bot of this config, or null (none, unreadable, or its process is gone). */
export function readAdminState(configFile: string): AdminState | null {
  try {
    const v = JSON.parse(readFileSync(adminStatePath(configFile), 'utf8')) as Partial<AdminState>;
    if (typeof v.pid !== 'number' || typeof v.port !== 'number' || !Number.isInteger(v.port) || v.port < 1 || v.port > 65535) return null;
    return processAlive(v.pid) ? { pid: v.pid, port: v.port, configFile: String(v.configFile ?? ''), startedAt: String(v.startedAt ?? '') } : null;
  } catch {
    return null;
  }
}
