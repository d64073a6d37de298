/** Entry of the crash tests' child process: the real `bookmaker` CLI (bundled once per test run so each start is fast). */
import { main } from '../../../src/cli/main.ts';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`crash-child: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  },
);
