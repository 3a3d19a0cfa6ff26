import { describe, expect, it } from 'vitest';
import { renderReport } from '../../src/results/report/render-report.ts';
import { capacityResult } from '../support/capacity-fixtures.ts';
import { makeResult } from '../support/result-fixtures.ts';

/** Series of a chart: name → the path's point count. */
function series(html: string, chartId: string): Map<string, number> {
  const figure = new RegExp(`<figure class="chart" id="${chartId}">([\\s\\S]*?)</figure>`).exec(html)?.[1] ?? '';
  return new Map([...figure.matchAll(/data-series="([^"]*)" d="([^"]*)"/g)].map((m) => [m[1]!, (m[2]!.match(/[ML]/g) ?? []).length]));
}

describe('the report of a capacity result', () => {
  it('draws the knee: percentiles and achieved against offered rate, the SLO line and the bracket', () => {
    const result = capacityResult({ seed: 5, ratePerS: 300, firstFail: 312, label: 'v2' });
    const html = renderReport({ label: 'capacity.json', result });
    expect(html).toContain('<section id="capacity">');
    expect(html).toContain(result.capacity!.finding);
    const searchSteps = result.capacity!.steps.filter((s) => s.kind === 'search').length;
    const latency = series(html, 'chart-knee-latency');
    expect(latency.get('p50')).toBe(searchSteps);
    expect(latency.get('p99')).toBe(searchSteps);
    expect(latency.get('SLO p99 &lt; 100ms')).toBe(2);
    expect(latency.get('last pass 300')).toBe(2);
    expect(latency.get('first fail 312')).toBe(2);
    const throughput = series(html, 'chart-knee-throughput');
    expect(throughput.get('achieved')).toBe(searchSteps);
    expect(throughput.get('achieved = offered')).toBe(2);
    // One table row per step, confirmation included.
    expect(html.match(/<tr><td>(search|confirm) \d+<\/td>/g)).toHaveLength(result.capacity!.steps.length);
  });

  it('has no capacity section for a run file', () => {
    expect(renderReport({ label: 'run.json', result: makeResult({ seed: 6 }) })).not.toContain('id="capacity"');
  });
});
