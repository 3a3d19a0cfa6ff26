import { describe, expect, it } from 'vitest';
import { bucketAverages, completeSeconds, secondsPerColumn, seriesRows } from '../../src/ui/dashboard/chart-panels.ts';
import { brailleChart } from '../../src/ui/text/braille-chart.ts';
import { columnChart, sparkline } from '../../src/ui/text/sparkline.ts';
import { model, snapshot, timeline } from '../support/live-fixtures.ts';

describe('column charts and sparklines', () => {
  it.each([
    // values scale to the largest shown; most recent at the right
    [[0, 1, 2, 4, 8], 5, undefined, ' ▁▂▄█'],
    // fewer values than columns: padded on the left
    [[8, 8], 4, undefined, '  ██'],
    // more values than columns: only the newest show
    [[8, 0, 4, 8], 2, undefined, '▄█'],
    // a small non-zero value is never drawn as nothing
    [[1000, 1], 2, undefined, '█▁'],
    // an explicit max
    [[4], 1, 8, '▄'],
    [[], 3, undefined, '   '],
  ])('sparkline(%j, %d, max %s) = %j', (values, width, max, line) => expect(sparkline(values, width, max)).toBe(line));

  it('stacks eighths over several rows', () => {
    // max 16 over 2 rows = 16 eighths: 16 fills both rows, 12 fills one and half of the next
    expect(columnChart([16, 8, 4, 12], { width: 4, rows: 2 })).toEqual(['█  ▄', '██▄█']);
  });

  it('draws nothing for zero width or rows', () => {
    expect(columnChart([1, 2], { width: 0, rows: 2 })).toEqual([]);
    expect(columnChart([1, 2], { width: 2, rows: 0 })).toEqual([]);
  });
});

describe('braille line chart', () => {
  it('puts one point per dot column, bottom to top', () => {
    // 1 cell wide, 1 cell high: 2 points, 4 levels (0…3 of max 3); the left dot at the bottom,
    // the right column filled from just above it to the top
    expect(brailleChart([[0, 3]], { width: 1, height: 1, max: 3 }).rows).toEqual([
      String.fromCharCode(0x2800 + 0x40 + 0x20 + 0x10 + 0x08),
    ]);
  });

  it.each([
    // flat line at the bottom of a 2-cell-high chart
    [[0, 0, 0, 0], 2, 2, ['  ', '⣀⣀']],
    // flat line at the top
    [[4, 4], 1, 2, ['⠉', ' ']],
    // a gap (null) is not joined across
    [[0, null, 0, 0], 2, 1, ['⡀⣀']],
  ])('series %j in %d×%d', (values, width, height, rows) => {
    expect(brailleChart([values], { width, height, max: 4 }).rows).toEqual(rows);
  });

  it('joins a jump by filling the column between the levels', () => {
    const { rows } = brailleChart([[0, 7]], { width: 1, height: 2, max: 7 });
    // right dot column filled from level 1 to 7, left column only at level 0
    expect(rows).toEqual([
      String.fromCharCode(0x2800 + 0x08 + 0x10 + 0x20 + 0x80),
      String.fromCharCode(0x2800 + 0x40 + 0x08 + 0x10 + 0x20),
    ]);
  });

  it('records which series owns a cell (the later one wins) for colouring', () => {
    const chart = brailleChart(
      [
        [0, 0],
        [4, 4],
      ],
      { width: 1, height: 2, max: 4 },
    );
    expect(chart.owners).toEqual([[1], [0]]);
    expect(brailleChart([[null, null]], { width: 2, height: 1, max: 1 }).owners).toEqual([[-1, -1]]);
  });

  it('clips values above max and keeps every row exactly `width` cells', () => {
    const chart = brailleChart([[1, 100, 5, 2, 9, 50]], { width: 5, height: 3, max: 10 });
    expect(chart.rows).toHaveLength(3);
    for (const row of chart.rows) expect(row).toHaveLength(5);
  });
});

describe('chart data', () => {
  it('drops the partial current second', () => {
    const m = model({ snapshot: snapshot({ elapsedMs: 5500, timeline: timeline(6) }) });
    expect(completeSeconds(m).map((row) => row.t)).toEqual([0, 1, 2, 3, 4]);
  });

  it.each([
    [120, 1],
    [60, 1],
    [59, 2],
    [28, 3],
    [0, 1],
  ])('secondsPerColumn(%d) = %d: a chart covers at least a minute', (columns, perColumn) =>
    expect(secondsPerColumn(columns)).toBe(perColumn),
  );

  it.each([
    [[1, 2, 3, 4], 2, [1.5, 3.5]],
    // the newest bucket is complete; the oldest may be partial
    [[1, 2, 3, 4, 5], 2, [1, 2.5, 4.5]],
    [[1, 2], 1, [1, 2]],
  ])('bucketAverages(%j, %d)', (values, size, averages) => expect(bucketAverages(values, size)).toEqual(averages));

  it.each([
    [1, [1, 0, 0]],
    [2, [2, 0, 0]],
    [3, [1, 1, 1]],
    [4, [2, 1, 1]],
    [8, [4, 2, 2]],
    [12, [6, 3, 3]],
  ])('seriesRows(%d): success gets the most rows', (height, rows) => expect(seriesRows(height)).toEqual(rows));
});
