/**
 * A stand-in for the chaos orchestrator, run as a process of its own so a test can kill -9 it: it
 * starts the bot child (src/chaos/bot-child.ts) as run-chaos does (an IPC channel, its output piped into
 * a log), tells its own parent the child's pid and passes on the child's messages, and sends the child
 * SIGTERM when told `term`.
 *
 *   fork('test/support/bot-orchestrator.ts', [CONFIG, BASE_URL, LOG], { execArgv: ['--import', 'tsx'], env })
 *   → { type: 'pid', pid }, { type: 'child', m }        ← { type: 'term' }
 */
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('../../src/chaos/bot-child.ts', import.meta.url));
const [config, baseUrl, logFile] = process.argv.slice(2);
const log = createWriteStream(logFile!, { flags: 'a' });
const child = spawn(process.execPath, ['--import', 'tsx', CHILD, config!, baseUrl!], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], env: process.env });
child.stdout!.pipe(log, { end: false });
child.stderr!.pipe(log, { end: false });
process.send!({ type: 'pid', pid: child.pid });
child.on('message', (m) => process.send!({ type: 'child', m }));
child.on('exit', (code, signal) => process.send!({ type: 'exit', code, signal }));
process.on('message', (m: { type: string }) => {
  if (m.type === 'term') child.kill('SIGTERM');
});
// the test ends this process (kill -9, or disconnect): then the child is on its own
process.on('disconnect', () => process.exit(0));
