import { describe, expect, it } from 'vitest';
import { planRunLayout, type RunPanelId } from '../../src/ui/dashboard/layout.ts';

const panels = (layout: ReturnType<typeof planRunLayout>): RunPanelId[] => (Object.keys(layout) as RunPanelId[]).sort();
const ALL: RunPanelId[] = ['clients', 'header', 'latencyChart', 'log', 'outcomes', 'percentiles', 'throughput'];

describe('run dashboard layout', () => {
  it.each([
    // the minimum supported size shows everything
    [80, 24, ALL],
    [120, 40, ALL],
    [200, 60, ALL],
    // shorter: the clients/log band goes first, then the charts
    [80, 20, ['header', 'latencyChart', 'outcomes', 'percentiles', 'throughput']],
    [80, 16, ['clients', 'header', 'log', 'outcomes', 'percentiles']],
    [80, 12, ['header', 'outcomes', 'percentiles']],
    // tiny: the header alone, clipped
    [80, 2, ['header']],
    // narrow: one panel per band, no latency chart, no log
    [60, 40, ['clients', 'header', 'outcomes', 'percentiles', 'throughput']],
    [60, 21, ['header', 'outcomes', 'percentiles', 'throughput']],
  ] as const)('%d×%d shows %j', (width, height, shown) => {
    expect(panels(planRunLayout({ width, height }))).toEqual(shown);
  });

  it.each([
    [80, 24, 0],
    [81, 25, 0],
    [120, 40, 0],
    [60, 30, 0],
    [73, 33, 0],
    [80, 24, 5],
    [120, 40, 12],
    [60, 30, 5],
  ])('%d×%d (workloads panel lines %d): panels tile the screen without overlapping', (width, height, lines) => {
    const layout = planRunLayout({ width, height }, lines);
    const owner = Array.from({ length: height }, () => new Array<string | null>(width).fill(null));
    for (const [id, rect] of Object.entries(layout)) {
      for (let y = rect.y; y < rect.y + rect.height; y++) {
        for (let x = rect.x; x < rect.x + rect.width; x++) {
          expect(owner[y]![x], `${id} overlaps at ${x},${y}`).toBeNull();
          owner[y]![x] = id;
        }
      }
    }
    // every row is used and every used row is covered edge to edge
    expect(owner.every((row) => row.every((cell) => cell !== null))).toBe(true);
  });

  it("gives extra height to the charts and the clients, up to the charts' maximum", () => {
    expect(planRunLayout({ width: 80, height: 24 })).toMatchObject({
      throughput: { height: 6 },
      clients: { height: 6 },
    });
    expect(planRunLayout({ width: 120, height: 40 })).toMatchObject({
      throughput: { height: 14 },
      clients: { height: 14 },
    });
    expect(planRunLayout({ width: 120, height: 60 })).toMatchObject({
      throughput: { height: 14 },
      clients: { height: 34 },
    });
  });

  it('keeps the percentiles at a fixed width and gives the rest to the outcomes', () => {
    expect(planRunLayout({ width: 100, height: 24 })).toMatchObject({
      percentiles: { x: 0, width: 28 },
      outcomes: { x: 28, width: 72 },
    });
  });
});

describe('run dashboard layout with the workloads panel', () => {
  it.each([
    // it sits under the percentiles and outcomes, full width, as tall as its lines (5 + border)
    [
      80,
      24,
      5,
      { x: 0, y: 12, width: 80, height: 7 },
      ['header', 'latencyChart', 'outcomes', 'percentiles', 'throughput', 'workloads'],
    ],
    [120, 40, 5, { x: 0, y: 12, width: 120, height: 7 }, [...ALL, 'workloads'].sort()],
    // many workloads: it takes its first six lines before the panels below (the charts no longer fit)
    [
      80,
      24,
      30,
      { x: 0, y: 12, width: 80, height: 8 },
      ['clients', 'header', 'log', 'outcomes', 'percentiles', 'workloads'],
    ],
    // narrow: under the outcomes
    [
      60,
      40,
      5,
      { x: 0, y: 18, width: 60, height: 7 },
      ['clients', 'header', 'outcomes', 'percentiles', 'throughput', 'workloads'],
    ],
  ] as const)('%d×%d with %d lines: %j', (width, height, lines, rect, shown) => {
    const layout = planRunLayout({ width, height }, lines);
    expect(layout.workloads).toEqual(rect);
    expect(panels(layout)).toEqual(shown);
  });

  it.each([
    [80, 24],
    [120, 40],
    [60, 30],
  ])('%d×%d without workload lines: the layout of today', (width, height) => {
    expect(planRunLayout({ width, height }, 0)).toEqual(planRunLayout({ width, height }));
  });
});
