/**
 * The HTML report renders in headless Chromium (Debian package `chromium`), from a file, offline:
 * the parsed DOM holds the charts and the summary table, and the screenshot is far from blank.
 * Skipped where Chromium is not installed (.ci/run installs it, so CI always runs this).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { loadBacktestConfig } from '../../src/backtest/backtest-config.ts';
import { loadReplaySource } from '../../src/backtest/replay-source.ts';
import { runBacktest } from '../../src/backtest/run-backtest.ts';
import { buildSummary } from '../../src/backtest/report-summary.ts';
import { buildHtml } from '../../src/backtest/report-html.ts';
import { polymarketRecording } from '../bench/fixtures.ts';

const run = promisify(execFile);
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

test('the HTML report renders in headless Chromium: charts and table in the DOM, a non-blank screenshot', {
  skip: CHROMIUM ? false : 'chromium not installed',
}, async () => {
  const dir = await polymarketRecording();
  const out = mkdtempSync(join(tmpdir(), 'bookmaker-chromium-'));
  try {
    const cfg = await loadBacktestConfig('config/backtest.yaml', {}, {});
    const probe = loadReplaySource(dir);
    const from = probe.cols.lts[probe.rows[0]!]!;
    const r = await runBacktest({ source: loadReplaySource(dir, { from, to: from + 120_000 }), config: cfg.bot, settings: cfg.settings });
    const html = join(out, 'report.html');
    writeFileSync(html, buildHtml(r, buildSummary(r)));
    const url = pathToFileURL(html).href;
    // a fresh profile directory per run, so parallel runs never share one; no network is needed or
    // offered (the flags this machine's docs require for headless Chromium: no sandbox, GPU, QUIC,
    // first-run, background networking, component updates or sync)
    const base = [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--hide-scrollbars',
      `--user-data-dir=${join(out, 'profile')}`,
      '--window-size=1280,1600',
    ];
    const dom = (await run(CHROMIUM!, [...base, '--dump-dom', url], { timeout: 60_000, maxBuffer: 64 << 20 })).stdout;
    assert.equal(
      dom.match(/<svg /g)?.length,
      4 + r.quoted.length,
      'PnL, attribution waterfall, inventory, markout curve, and best bid/ask with quotes for every quoted market',
    );
    assert.match(dom, /<table class="summary">/);
    assert.match(dom, /<svg class="chart waterfall"[^>]*aria-label="Where the PnL came from/);
    assert.equal(dom.match(/<rect class="bar"/g)?.length, 5, 'four components and the total');
    assert.match(dom, /<svg class="chart category"[^>]*aria-label="Markout curve/);
    assert.match(dom, /aria-label="Best bid and ask with own quotes and fills/);
    for (const legend of ['recorded best bid', 'recorded best ask', 'own bid', 'own ask', '▲ bought (fill)', '▼ sold (fill)'])
      assert.ok(dom.includes(`>${legend}</text>`), `legend: ${legend}`);
    assert.match(dom, /<table class="run">[\s\S]*strategy avellaneda[\s\S]*queue model/);
    // zoom: the page opened at a range rescales the time charts (the script ran in the browser)
    const zoomed = (await run(CHROMIUM!, [...base, '--dump-dom', `${url}#zoom=0.25,0.5`], { timeout: 60_000, maxBuffer: 64 << 20 })).stdout;
    assert.match(zoomed, /<g class="zx" transform="translate\(-?[\d.]+,0\) scale\(4,1\)"/);
    assert.doesNotMatch(dom, /<g class="zx" transform=/, 'not zoomed without the range');
    const label = (html: string) => /<span id="zoom-label">([^<]*)<\/span>/.exec(html)![1];
    assert.notEqual(label(zoomed), label(dom));
    const png = join(out, 'shot.png');
    await run(CHROMIUM!, [...base, `--screenshot=${png}`, url], { timeout: 60_000 });
    assert.deepEqual([...readFileSync(png).subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG');
    // an empty page at this size compresses to ~12 KB; the rendered report is well over 100 KB
    assert.ok(statSync(png).size > 60_000, `screenshot of ${statSync(png).size} bytes looks blank`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
