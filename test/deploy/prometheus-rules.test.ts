/**
 * The shipped alert rules (deploy/prometheus/bookmaker-alerts.yml): valid (`promtool check rules`),
 * behaving as their unit tests say (`promtool test rules`), and written against metrics a live bot
 * really exposes: every bookmaker_* name in a rule is in the /metrics of a bot quoting the local
 * exchange, and that exposition passes `promtool check metrics`. Without promtool these tests are
 * skipped with the reason shown.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { config, openOrders, setBook, startExchange, startTestBot, waitFor } from '../e2e/harness.ts';
import { promtool, RULES_DIR, SKIP_PROMTOOL } from './promtool.ts';
import { freePort } from '../support/net.ts';

const RULES = join(RULES_DIR, 'bookmaker-alerts.yml');

test('promtool check rules: the shipped alert rules are valid', { skip: SKIP_PROMTOOL }, () => {
  const r = promtool(['check', 'rules', RULES]);
  assert.equal(r.status, 0, r.out);
  assert.match(r.out, /SUCCESS: \d+ rules found/);
});

test('promtool test rules: every alert fires (and stays quiet) as its unit tests say', { skip: SKIP_PROMTOOL }, () => {
  const r = promtool(['test', 'rules', 'bookmaker-alerts.test.yml'], undefined, RULES_DIR);
  assert.equal(r.status, 0, r.out);
  assert.match(r.out, /SUCCESS/);
  // each alert of the rules file has at least one unit test
  const alerts = [...readFileSync(RULES, 'utf8').matchAll(/- alert: (\w+)/g)].map((m) => m[1]!);
  const tests = readFileSync(join(RULES_DIR, 'bookmaker-alerts.test.yml'), 'utf8');
  for (const a of alerts) assert.match(tests, new RegExp(`alertname: ${a}\\b`), `${a} has no unit test`);
});

test('promtool check metrics on a live bot, and the rules use only metrics it exposes', { skip: SKIP_PROMTOOL, timeout: 60_000 }, async () => {
  const h = await startExchange({ markets: 2 });
  try {
    for (const m of h.markets) await setBook(h, m, 480_000, 520_000);
    const bot = await startTestBot(h, await config(h), { metricsPort: await freePort() });
    try {
      await waitFor('quoting', async () => (await openOrders(h.bot)).length >= 4, 20_000);
      const text = await (await fetch(`${bot.metricsUrl}/metrics`)).text();
      const r = promtool(['check', 'metrics'], text);
      // promtool's lint names three of prom-client's default Node.js gauges (nodejs_active_handles_total,
      // …_requests_total, …_resources_total: prom-client's names, which we do not rename); any other
      // finding, and any parse error, fails
      const promClientNames = /^nodejs_active_(handles|requests|resources)_total non-counter metrics should not have "_total" suffix$/;
      const findings = r.out
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== '' && !promClientNames.test(l));
      assert.deepEqual(findings, [], r.out);
      assert.ok(r.status === 0 || r.out.trim() !== '', `promtool exited ${r.status} without a finding`);
      const exposed = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
      const used = new Set([...readFileSync(RULES, 'utf8').matchAll(/\b(bookmaker_[a-z_]+)/g)].map((m) => m[1]!));
      assert.ok(used.size >= 8, [...used].join(' '));
      for (const name of used) assert.ok(exposed.has(name) || exposed.has(name.replace(/_total$/, '')), `rule metric ${name} is not exposed by the bot`);
      // the metric contract of docs/operating.md (the health model's metrics)
      for (const name of [
        'bookmaker_market_state',
        'bookmaker_market_not_quoting_seconds',
        'bookmaker_kill_switch_active',
        'bookmaker_halted',
        'bookmaker_ready',
      ])
        assert.ok(exposed.has(name), name);
      assert.match(text, /^bookmaker_market_state\{market="0x[0-9a-f]{64}",state="quoting"\} 1$/m);
      assert.match(text, /^bookmaker_kill_switch_active 0$/m);
    } finally {
      await bot.stop();
    }
  } finally {
    await h.close();
  }
});
