import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatMs } from '../../src/results/compare/format.ts';
import { renderReport } from '../../src/results/report/render-report.ts';
import type { CheckResult } from '../../src/contract/result-schema.ts';
import { sampleResult } from '../support/recorder-fixtures.ts';
import { makeResult } from '../support/result-fixtures.ts';
import { requireProgram } from '../support/system-program.ts';
import { useTempDir } from '../support/temp-dir.ts';

/**
 * The report as a person sees it: headless Chromium (Debian's `chromium`, installed by .ci/run;
 * skipped when it is not on the PATH) opens the file with no network.
 * Set RPCLOAD_UPDATE_SCREENSHOT=1 to also refresh docs/report-screenshot.png (the README's).
 */
const SCREENSHOT = new URL('../../docs/report-screenshot.png', import.meta.url);
const chromiumProgram = requireProgram('chromium', { package: 'chromium' });

/** Flags for a headless run with no network of its own. */
const HEADLESS_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const CHECKS: CheckResult[] = [
  { id: 'envelope', verdict: 'pass', detail: 'every one of 9000 responses was a valid envelope', evidence: { responses: 9000, contentType: 'application/json' } },
  {
    id: 'ratelimit.threshold',
    verdict: 'fail',
    detail: 'client-3 had 104 requests admitted in the window starting at t=20 s (limit 100)',
    evidence: { client: 'client-3', windowStartS: 20, admitted: 104, limit: 100, firstRefusalAtMs: 20_412.5, retryAfterS: [3, 3, 2] },
    durationMs: 21_040,
  },
  { id: 'ratelimit.response', verdict: 'pass', detail: '429 with Retry-After and rate_limit_exceeded', evidence: { status: 429, retryAfter: '3' } },
  { id: 'tls', verdict: 'skip', detail: 'plain http target', evidence: {} },
];

function realisticRun(seed: number, medianMs: number) {
  return makeResult({
    seed,
    profile: 'demo',
    durationS: 60,
    rps: 150,
    clients: 30,
    warmupS: 3,
    latencyMs: { median: medianMs, spread: 0.55 },
    rateLimitedRate: 0.03,
    checks: CHECKS,
    thresholds: [
      { expr: 'p99 < 250ms', actual: 118.2, ok: true },
      { expr: 'error_rate < 0.5%', actual: 0.56, ok: false },
    ],
    warnings: ['schedule lag p99 was 14 ms: the generator, not the server, may have been the bottleneck'],
  });
}

describe.skipIf(chromiumProgram.path === null)(`HTML report in headless Chromium${chromiumProgram.skipNote}`, () => {
  let browser: Browser;
  const dir = useTempDir('rpcload-report-');

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: chromiumProgram.path!, args: HEADLESS_ARGS });
  });

  afterAll(async () => {
    await browser?.close();
  });

  it.each([
    ['a single run', false],
    ['a run against a baseline', true],
  ])('renders %s with drawn charts, no console errors and no network requests', async (_name, withBaseline) => {
    const html = renderReport(
      { label: 'results/2025-03-01T100000Z-demo.json', result: realisticRun(11, 18) },
      withBaseline ? { label: 'results/2025-02-28T100000Z-demo.json', result: realisticRun(12, 15) } : undefined,
    );
    const file = join(dir, withBaseline ? 'baseline.html' : 'report.html');
    await writeFile(file, html);
    const url = pathToFileURL(file).href;

    const page = await browser.newPage({ viewport: { width: 1280, height: 1500 } });
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('request', (request) => request.url() !== url && requests.push(request.url()));
    await page.goto(url, { waitUntil: 'load' });

    const charts = [];
    for (const figure of await page.locator('figure.chart').all()) {
      const paths = [];
      for (const path of await figure.locator('path.series').all()) {
        paths.push({ points: ((await path.getAttribute('d')) ?? '').match(/[ML]/g)?.length ?? 0, box: await path.boundingBox() });
      }
      charts.push({
        id: await figure.getAttribute('id'),
        legend: await figure.locator('.legend-item text').allTextContents(),
        axisLabels: await figure.locator('.axis-label').allTextContents(),
        paths,
      });
    }
    expect(await page.locator('details.check[open]').count()).toBe(1);

    await page.screenshot({ path: join(dir, 'report.png'), fullPage: true });
    if (process.env.RPCLOAD_UPDATE_SCREENSHOT === '1' && !withBaseline) {
      await mkdir(new URL('.', SCREENSHOT), { recursive: true });
      await page.screenshot({ path: SCREENSHOT.pathname, clip: { x: 0, y: 0, width: 1280, height: 1500 } });
    }
    await page.close();
    expect(existsSync(join(dir, 'report.png'))).toBe(true);
    expect(problems).toEqual([]);
    expect(requests).toEqual([]);
  });

  it('lists each method’s exemplars with their trace ids linked to the tracing UI', async () => {
    const result = sampleResult();
    const html = renderReport({ label: 'results/exemplars.json', result }, undefined, 'https://tempo.example/trace/{traceId}?span={spanId}');
    const file = join(dir, 'exemplars.html');
    await writeFile(file, html);
    const url = pathToFileURL(file).href;
    const page = await browser.newPage({ viewport: { width: 1280, height: 1500 } });
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('request', (request) => request.url() !== url && requests.push(request.url()));
    await page.goto(url, { waitUntil: 'load' });
    const tables = await page.locator('#exemplars table.exemplars').count();
    expect(tables).toBe(Object.keys(result.exemplars!).length);
    const links = [];
    for (const anchor of await page.locator('#exemplars a').all())
      links.push({ href: (await anchor.getAttribute('href')) ?? '', text: await anchor.textContent(), visible: await anchor.isVisible() });
    const kept = new Set(Object.values(result.exemplars!).flatMap((list) => list.map((e) => `${e.traceId}?span=${e.spanId}`)));
    expect(links.length).toBeGreaterThan(10);
    for (const link of links) {
      const match = /^https:\/\/tempo\.example\/trace\/([0-9a-f]{32})\?span=([0-9a-f]{16})$/.exec(link.href);
      expect(match).not.toBeNull();
      expect(kept.has(`${match![1]}?span=${match![2]}`)).toBe(true);
      expect(link.text).toBe(match![1]);
      expect(link.visible).toBe(true);
    }
    // The slowest of each method comes first, as the result file lists it.
    const firstRow = await page.locator('#exemplars table.exemplars').first().locator('tbody tr').first().locator('td').nth(1).textContent();
    const firstMethod = Object.keys(result.exemplars!).sort()[0]!;
    expect(firstRow).toBe(`${formatMs(result.exemplars![firstMethod]![0]!.latencyMs)} ms`);
    await page.close();
    expect(problems).toEqual([]);
    expect(requests).toEqual([]);
  });
});
