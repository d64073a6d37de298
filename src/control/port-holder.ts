/**
 * Who listens on a local TCP port (Linux, best effort): for the message of a port that cannot be
 * bound. Reads /proc/net/tcp{,6} for the listening socket's inode, then /proc/<pid>/fd for the
 * process holding it. Null when it cannot tell (another OS, another user's process, a container).
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface PortHolder {
  readonly pid: number;
  /** its process name (/proc/<pid>/comm: never the arguments, which may hold a key) */
  readonly command: string;
}

function listeningInodes(port: number): Set<string> {
  const out = new Set<string>();
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  for (const f of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(f, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // local_address is ADDR:PORT (hex); state 0A is LISTEN; the inode is column 10
      if (cols.length > 9 && cols[1]?.endsWith(`:${hex}`) && cols[3] === '0A' && cols[9] !== '0') out.add(cols[9]!);
    }
  }
  return out;
}

export function portHolder(port: number): PortHolder | null {
  try {
    const inodes = listeningInodes(port);
    if (inodes.size === 0) return null;
    for (const p of readdirSync('/proc')) {
      if (!/^\d+$/.test(p)) continue;
      let fds: string[];
      try {
        fds = readdirSync(`/proc/${p}/fd`);
      } catch {
        continue;
      }
      for (const fd of fds) {
        let link: string;
        try {
          link = readlinkSync(`/proc/${p}/fd/${fd}`);
        } catch {
          continue;
        }
        const m = /^socket:\[(\d+)\]$/.exec(link);
        if (!m || !inodes.has(m[1]!)) continue;
        let command = '';
        try {
          command = readFileSync(`/proc/${p}/comm`, 'utf8').trim();
        } catch {
          // gone meanwhile
        }
        return { pid: Number(p), command };
      }
    }
  } catch {
    // not Linux, or /proc unreadable
  }
  return null;
}

export function describeHolder(h: PortHolder | null): string {
  return h ? `held by pid ${h.pid}${h.command ? ` (${h.command})` : ''}` : 'holder unknown';
}
