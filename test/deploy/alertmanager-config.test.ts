/**
 * deploy/alertmanager/alertmanager.yml: valid for `amtool check-config`, routes every severity the
 * rules of deploy/prometheus use to a receiver, inhibits per-market alerts under BookmakerDown, and
 * keeps every secret in a file (no webhook URL, token or password inline).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { RULES_DIR } from './promtool.ts';
import { ALERTMANAGER_DIR, amtool, SKIP_AMTOOL } from './amtool.ts';

const FILE = join(ALERTMANAGER_DIR, 'alertmanager.yml');
const rules = parse(readFileSync(join(RULES_DIR, 'bookmaker-alerts.yml'), 'utf8')) as {
  groups: { rules: { alert: string; labels: { severity: string } }[] }[];
};
const alerts = rules.groups.flatMap((g) => g.rules);

describe('deploy/alertmanager/alertmanager.yml', () => {
  it('passes amtool check-config', { skip: SKIP_AMTOOL }, () => {
    const r = amtool(['check-config', FILE]);
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, /SUCCESS/);
  });

  it('routes every alert of the shipped rules: critical to on-call (chat and e-mail), warning to chat', { skip: SKIP_AMTOOL }, () => {
    assert.ok(alerts.length >= 10);
    for (const a of alerts) {
      const r = amtool([
        'config',
        'routes',
        'test',
        `--config.file=${FILE}`,
        `alertname=${a.alert}`,
        `severity=${a.labels.severity}`,
        'instance=bot-1:9464',
        'market=0xabc',
      ]);
      assert.equal(r.status, 0, r.out);
      const receiver = r.out
        .trim()
        .split('\n')
        .find((l) => l.startsWith('bookmaker-'));
      assert.equal(receiver, a.labels.severity === 'critical' ? 'bookmaker-oncall' : 'bookmaker-chat', `${a.alert} (${a.labels.severity})`);
    }
  });

  it('inhibits the per-market alerts of a bot that is down, on the same instance only', () => {
    const cfg = parse(readFileSync(FILE, 'utf8')) as { inhibit_rules: { source_matchers: string[]; target_matchers: string[]; equal: string[] }[] };
    const down = cfg.inhibit_rules.find((r) => r.source_matchers.includes('alertname="BookmakerDown"'));
    assert.ok(down, 'an inhibit rule with BookmakerDown as source');
    assert.deepEqual(down.equal, ['instance']);
    assert.ok(down.target_matchers.includes('alertname=~"Bookmaker.+"') && down.target_matchers.includes('alertname!="BookmakerDown"'));
  });

  it('keeps secrets in files: no webhook URL, token or password inline', () => {
    const text = readFileSync(FILE, 'utf8');
    const cfg = parse(text) as Record<string, unknown>;
    const inline: string[] = [];
    const walk = (v: unknown, path: string): void => {
      if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}[${i}]`));
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, path ? `${path}.${k}` : k);
      else if (/(api_url|webhook_url|bot_token|password|auth_secret|credentials|url)$/.test(path.split('.').pop() ?? '') && !path.endsWith('_file'))
        inline.push(path);
    };
    walk(cfg, '');
    assert.deepEqual(inline, []);
    assert.match(text, /slack_api_url_file: \/etc\/alertmanager\/secrets\//);
    assert.match(text, /smtp_auth_password_file: \/etc\/alertmanager\/secrets\//);
  });
});
