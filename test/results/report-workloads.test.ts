/**
 * The HTML report of a real run with two workloads (the reference server in process, 2 s): a
 * section per workload with its figures, goodput, phases and charts; against a baseline run, its
 * lines dashed beside; and in headless Chromium (skipped when it is not installed), every chart
 * drawn with no console error and no network request.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { renderReport } from '../../src/results/report/render-report.ts';
import { startServer } from '../../src/server/start-server.ts';
import { makeResult } from '../support/result-fixtures.ts';
import { requireProgram } from '../support/system-program.ts';
import { useTempDir } from '../support/temp-dir.ts';
import { runWorkloads, twoWorkloadProfile, WORKLOAD_SERVER } from '../support/workload-runs.ts';

const chromiumProgram = requireProgram('chromium', { package: 'chromium' });
const dir = useTempDir('rpcload-report-workloads-');

/** Name, number of points and dash style of every series path of a chart. */
function seriesPaths(html: string, chartId: string): { name: string; points: number; dashed: boolean }[] {
  const figure = new RegExp(`<figure class="chart" id="${chartId}">([\\s\\S]*?)</figure>`).exec(html)?.[1] ?? '';
  return [...figure.matchAll(/<path class="series" data-series="([^"]*)" d="([^"]*)"([^>]*)\/>/g)].map((m) => ({
    name: m[1]!,
    points: (m[2]!.match(/[ML]/g) ?? []).length,
    dashed: m[3]!.includes('stroke-dasharray'),
  }));
}

/** browse ramps over two phases (20/s, then 40/s); orders holds a concurrency of 3. */
function rampProfile(): Record<string, unknown> {
  const profile = twoWorkloadProfile();
  const [browse, orders] = profile.workloads as Record<string, unknown>[];
  const ramp = [
    { duration: '1s', rate: 20 },
    { duration: '1s', rate: 40 },
  ];
  return { ...profile, workloads: [{ ...browse, phases: ramp }, orders], thresholds: ['p99 < 2s'] };
}

type Server = Awaited<ReturnType<typeof startServer>>;
let server: Server;
let run: RunResult;
let baseline: RunResult;
let html: string;

beforeAll(async () => {
  server = await startServer(WORKLOAD_SERVER);
  run = await runWorkloads(server.url, rampProfile());
  baseline = await runWorkloads(server.url, rampProfile());
  html = renderReport({ label: 'results/run.json', result: run });
}, 30_000);
afterAll(() => server.close());

describe('HTML report of a run with workloads', () => {
  it('has a section per workload with its figures, goodput and phases', () => {
    expect(html).toContain('<a href="#workloads">Workloads</a>');
    const parts = [...html.matchAll(/<section class="workload" id="(workload-\d)"><h3>Workload <code>([^<]*)<\/code><\/h3>([\s\S]*?)<\/section>/g)];
    expect(parts.map((m) => [m[1], m[2]])).toEqual([
      ['workload-1', 'browse'],
      ['workload-2', 'orders'],
    ]);
    const browse = run.byWorkload!.browse!;
    const part = parts[0]![3]!;
    expect(part).toContain(`<dt>Goodput</dt><dd>${browse.goodput!.perS.toFixed(1)}/s over the run (${browse.goodput!.requests} within 2000 ms)</dd>`);
    expect(part).toContain(`<dt>Requests</dt><dd>${browse.requests}</dd>`);
    const phaseRows = [...part.matchAll(/<tr><th scope="row"><code>([^<]*)<\/code><\/th><td class="num">([^<]*)<\/td><td class="num">([^<]*)<\/td>/g)];
    expect(phaseRows.map((m) => m.slice(1))).toEqual(browse.phases.map((p) => [p.name, `${p.offeredPerS!.toFixed(1)}/s`, `${p.achievedPerS.toFixed(1)}/s`]));
    expect(browse.phases.map((p) => p.offeredPerS)).toEqual([20, 40]);
    expect(parts[1]![3]!).toContain('<td class="num">– (closed model)</td>');
    // The run's own goodput, in its summary.
    expect(html).toContain(`<dt>Goodput</dt><dd>${run.summary.goodput!.perS.toFixed(1)}/s (`);
  });

  it('draws each workload’s latency spectrum from its own histograms, and a ramp’s offered vs achieved', () => {
    for (const id of ['chart-workload-1-spectrum', 'chart-workload-2-spectrum']) {
      expect(seriesPaths(html, id).map((s) => [s.name, s.points > 1, s.dashed])).toEqual([
        ['service time', true, false],
        ['latency', true, false],
      ]);
    }
    expect(seriesPaths(html, 'chart-workload-1-phases').map((s) => [s.name, s.points])).toEqual([
      ['offered', 2],
      ['achieved', 2],
    ]);
    // One phase: its table says it all.
    expect(html).not.toContain('id="chart-workload-2-phases"');
  });

  it('draws a baseline’s workload dashed beside, and has no workload section for a run of one', () => {
    const page = renderReport({ label: 'run.json', result: run }, { label: 'base.json', result: baseline });
    expect(seriesPaths(page, 'chart-workload-2-spectrum').map((s) => [s.name, s.dashed])).toEqual([
      ['service time', false],
      ['latency', false],
      ['service time (baseline)', true],
      ['latency (baseline)', true],
    ]);
    expect(page).toMatch(/<dt>Requests<\/dt><dd>\d+<span class="base" title="baseline">\d+<\/span><\/dd>/);
    expect(renderReport({ label: 'one.json', result: makeResult({ seed: 1, durationS: 10 }) })).not.toContain('id="workloads"');
  });

  it('says which threshold stopped a run, and when', () => {
    const stop = { reason: 'threshold' as const, threshold: 'p99{workload:browse} < 1ms', atMs: 1234.5 };
    const page = renderReport({ label: 'run.json', result: { ...run, run: { ...run.run, status: 'aborted', stop } } });
    expect(page).toContain('aborted</span> — stopped at 1.2 s: the abortOnFail threshold <code>p99{workload:browse} &lt; 1ms</code> failed');
    expect(html).not.toContain('stopped at');
  });
});

describe.skipIf(chromiumProgram.path === null)(`HTML report of workloads in headless Chromium${chromiumProgram.skipNote}`, () => {
  it('draws every workload chart, with no console error and no network request', async () => {
    const browser = await chromium.launch({ executablePath: chromiumProgram.path!, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
    try {
      const file = join(dir, 'workloads.html');
      await writeFile(file, renderReport({ label: 'run.json', result: run }, { label: 'base.json', result: baseline }));
      const url = pathToFileURL(file).href;
      const page = await browser.newPage({ viewport: { width: 1280, height: 1500 } });
      const problems: string[] = [];
      const requests: string[] = [];
      page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
      page.on('pageerror', (error) => problems.push(error.message));
      page.on('request', (request) => request.url() !== url && requests.push(request.url()));
      await page.goto(url, { waitUntil: 'load' });
      const drawn: { id: string | null; paths: number; sized: boolean }[] = [];
      for (const figure of await page.locator('#workloads figure.chart').all()) {
        const boxes = await Promise.all((await figure.locator('path.series').all()).map((path) => path.boundingBox()));
        drawn.push({ id: await figure.getAttribute('id'), paths: boxes.length, sized: boxes.every((b) => b !== null && (b.width > 0 || b.height > 0)) });
      }
      expect(drawn).toEqual([
        { id: 'chart-workload-1-spectrum', paths: 4, sized: true },
        { id: 'chart-workload-1-phases', paths: 2, sized: true },
        { id: 'chart-workload-2-spectrum', paths: 4, sized: true },
      ]);
      expect(await page.locator('#workloads section.workload h3').allTextContents()).toEqual(['Workload browse', 'Workload orders']);
      expect([problems, requests]).toEqual([[], []]);
    } finally {
      await browser.close();
    }
  }, 30_000);
});
