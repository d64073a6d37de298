// The reporter of a group process (scripts/test-group.mjs): Node's TAP reporter, one instance per file, so each
// file's section reads as it would alone (numbered from 1, its own plan). The marker test the group runs after
// each file's tests ends that file's section:
//   # bookmaker-group-file: FILE ok|failed
//   TAP version 13 ... 1..N
//   # bookmaker-group-end: FILE
// A test that fails (not a todo) anywhere in the file marks it failed; the counts (# tests, # pass, # fail,
// # skipped, # todo) are the file's. What comes after the last file follows `# bookmaker-group-rest`.
import { tap } from 'node:test/reporters';

/** The name prefix of the group's marker tests (never a real test's). */
export const SENTINEL = '\u0000bookmaker-group: end of ';

/** An async iterable fed by push(), ended by end(). */
function channel() {
  const queue = [];
  let wake = null;
  let ended = false;
  return {
    push(e) {
      queue.push(e);
      wake?.();
    },
    end() {
      ended = true;
      wake?.();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        while (queue.length) yield queue.shift();
        if (ended) return;
        await new Promise((r) => (wake = r));
        wake = null;
      }
    },
  };
}

function section() {
  const ch = channel();
  const out = [];
  const done = (async () => {
    for await (const s of tap(ch)) out.push(s);
  })();
  return { ch, out, done, failed: false, n: 0, counts: { tests: 0, pass: 0, fail: 0, skipped: 0, todo: 0 } };
}

export default async function* groupReporter(source) {
  let cur = section();
  for await (const ev of source) {
    const d = ev.data ?? {};
    if (typeof d.name === 'string' && d.name.startsWith(SENTINEL)) {
      if (ev.type === 'test:pass' || ev.type === 'test:fail') {
        cur.ch.end();
        await cur.done;
        const file = d.name.slice(SENTINEL.length);
        const counts = Object.entries(cur.counts)
          .map(([k, v]) => `# ${k} ${v}\n`)
          .join('');
        yield `# bookmaker-group-file: ${file} ${cur.failed ? 'failed' : 'ok'}\n${cur.out.join('')}1..${cur.n}\n${counts}# bookmaker-group-end: ${file}\n`;
        cur = section();
      }
      continue;
    }
    let e = ev;
    if (ev.type === 'test:fail' && !d.todo) cur.failed = true;
    if ((ev.type === 'test:pass' || ev.type === 'test:fail') && d.details?.type !== 'suite') {
      const c = cur.counts;
      c.tests++;
      if (d.todo) c.todo++;
      else if (d.skip) c.skipped++;
      else if (ev.type === 'test:pass') c.pass++;
      else c.fail++;
    }
    // the whole run's totals (marker tests counted): each file's are written above
    if (ev.type === 'test:diagnostic' && d.nesting === 0 && /^(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) /.test(d.message)) continue;
    if ((ev.type === 'test:pass' || ev.type === 'test:fail') && d.nesting === 0) e = { ...ev, data: { ...d, testNumber: ++cur.n } };
    if (ev.type === 'test:plan' && d.nesting === 0) continue; // the whole group's count: each file's is written above
    cur.ch.push(e);
  }
  cur.ch.end();
  await cur.done;
  const rest = cur.out.filter((s) => s !== 'TAP version 13\n').join('');
  if (rest) yield `# bookmaker-group-rest\n${rest}`;
}
