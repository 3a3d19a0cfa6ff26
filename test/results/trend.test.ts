import { describe, expect, it } from 'vitest';
import { trendPoint, trendSeries } from '../../src/results/trend/trend-series.ts';
import { renderTrendMarkdown, renderTrendTable } from '../../src/results/trend/render-trend.ts';
import { capacityResult } from '../support/capacity-fixtures.ts';
import { makeResult } from '../support/result-fixtures.ts';

/** Nightly capacity results: ~300/s with ±2 % wobble, p99 ~40 ms, one day apart. */
function nightly(count: number, inject: { at: number; ratePerS?: number; p99Ms?: number }) {
  return Array.from({ length: count }, (_, i) => {
    const wobble = [1, 1.02, 0.98, 1.01, 0.99, 1.015, 0.985, 1][i % 8]!;
    const hit = i === inject.at;
    const result = capacityResult({
      seed: i + 1,
      ratePerS: Math.round((hit && inject.ratePerS !== undefined ? inject.ratePerS : 300) * wobble),
      p99Ms: (hit && inject.p99Ms !== undefined ? inject.p99Ms : 40) * wobble,
      label: `v1.${i}`,
      startedAt: new Date(Date.UTC(2026, 10, 1 + i, 2)).toISOString(),
    });
    return trendPoint(`night-${i}.json`, result);
  });
}

/** The same night with its p99 scaled (the wobble kept), to put the series at sub-ms or larger latencies. */
const scaleP99 = <P extends { p99Ms: number | null }>(point: P, factor: number): P => ({ ...point, p99Ms: point.p99Ms! * factor });

const flagged = (series: ReturnType<typeof trendSeries>) => series.rows.filter((r) => r.flags.length > 0).map((r) => r.label);

describe('rpcload trend', () => {
  it('flags exactly the injected capacity drop when it is the latest run', () => {
    const series = trendSeries(nightly(8, { at: 7, ratePerS: 240 }));
    expect(flagged(series)).toEqual(['v1.7']);
    expect(series.latestRegressed).toBe(true);
    expect(series.rows.at(-1)!.flags.map((f) => f.metric)).toEqual(['capacity']);
  });

  it('flags exactly an injected p99 regression in the middle, and not the runs after it', () => {
    const series = trendSeries(nightly(9, { at: 4, p99Ms: 80 }));
    expect(flagged(series)).toEqual(['v1.4']);
    expect(series.latestRegressed).toBe(false);
  });

  it.each([
    ['capacity +344 %', { at: 7, ratePerS: 1332 }, 'capacity', /better than the median of the 5 before it: capacity \+3\d\d%/],
    ['p99 halved', { at: 7, p99Ms: 20 }, 'p99', /better than the median of the 5 before it: p99 -4\d%/],
  ] as const)('says a significant change the good way as plainly as a bad one: %s', (_, inject, metric, headline) => {
    const series = trendSeries(nightly(8, inject));
    const latest = series.rows.at(-1)!;
    expect([latest.flags, latest.improvements.map((f) => f.metric), series.latestRegressed]).toEqual([[], [metric], false]);
    const table = renderTrendTable(series);
    expect(table.split('\n')[0]).toMatch(headline);
    expect(table).not.toContain('within the noise');
    expect(table).toContain('BETTER:');
    expect(renderTrendMarkdown(series)).toContain('🟢 BETTER');
  });

  it.each([
    ['0.4 ms → 0.8 ms: doubled, yet under the 1 ms floor', 0.4, 0.8, false],
    ['4 ms → 5.5 ms: beyond 10 % and beyond 1 ms', 4, 5.5, true],
    ['20 ms → 21.5 ms: beyond 1 ms, under 10 %', 20, 21.5, false],
  ] as const)('judges a latency move against a tenth of its median and 1 ms both, as compare’s default does: %s', (_, fromMs, toMs, flags) => {
    const series = trendSeries(nightly(6, { at: 5, p99Ms: (toMs / fromMs) * 40 }).map((p) => scaleP99(p, fromMs / 40)));
    expect(series.rows.at(-1)!.flags.map((f) => f.metric)).toEqual(flags ? ['p99'] : []);
  });

  it('orders the runs by start time whatever the order of the files', () => {
    const points = nightly(5, { at: -1 }).reverse();
    expect(trendSeries(points).rows.map((r) => r.label)).toEqual(['v1.0', 'v1.1', 'v1.2', 'v1.3', 'v1.4']);
    expect(flagged(trendSeries(points))).toEqual([]);
  });

  it('reads run files too: their summary p50, p99 and error rate', () => {
    const run = trendPoint('run.json', makeResult({ seed: 3, errorRate: 0.02 }));
    expect(run).toMatchObject({ kind: 'run', capacityPerS: null });
    expect(run.errorRate!).toBeGreaterThan(0.01);
    expect(run.p99Ms!).toBeGreaterThan(run.p50Ms!);
  });
});
