import { describe, expect, it } from 'vitest';
import { createPickerState, pickClient } from '../../src/driver/client-picker.ts';

function picks(weights: number[], n: number, available: (i: number, step: number) => boolean = () => true): number[] {
  const state = createPickerState(weights);
  const out: number[] = [];
  for (let step = 0; step < n; step++) out.push(pickClient(state, (i) => available(i, step)));
  return out;
}

describe('pickClient', () => {
  it.each([
    // equal weights: plain round-robin
    [[1, 1, 1], 6, [0, 1, 2, 0, 1, 2]],
    // weights 5:1:1 are interleaved smoothly, not 5 in a row (nginx's example)
    [[5, 1, 1], 7, [0, 0, 1, 0, 2, 0, 0]],
    // a single client gets everything
    [[3], 3, [0, 0, 0]],
  ])('weights %j → %j', (weights, n, expected) => expect(picks(weights, n)).toEqual(expected));

  it('passes over unavailable clients and reports -1 when none is available', () => {
    expect(picks([1, 1, 1], 4, (i) => i !== 1)).toEqual([0, 2, 0, 2]);
    expect(picks([1, 1], 2, () => false)).toEqual([-1, -1]);
  });

  it('does not let a paused client bank credit and burst when it returns', () => {
    // client 1 is paused for the first 10 picks, then both share evenly again
    const out = picks([1, 1], 16, (i, step) => i === 0 || step >= 10);
    expect(out.slice(10)).toEqual([0, 1, 0, 1, 0, 1]);
  });

  it('shares arrivals in proportion to weights over many picks', () => {
    const out = picks([10, 1, 1, 1, 1], 14_000);
    const counts = [0, 1, 2, 3, 4].map((i) => out.filter((x) => x === i).length);
    expect(counts).toEqual([10_000, 1000, 1000, 1000, 1000]);
  });
});
