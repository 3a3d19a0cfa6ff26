import { describe, expect, it } from 'vitest';
import { histogramCountProblem } from '../../src/result-file/histograms.ts';
import { makeResult } from '../support/result-fixtures.ts';

const result = makeResult({ seed: 7, rps: 20, durationS: 5, methods: { ping: 2, echo: 1 }, clients: 3 });

describe('histogramCountProblem', () => {
  it('accepts a file whose histograms hold exactly its counts', () => {
    expect(histogramCountProblem(result, 'r.json')).toBeNull();
  });

  it('names the first histogram that holds another count', () => {
    const swapped = {
      ...result,
      histograms: { ...result.histograms, latency: result.histograms.byMethod.echo!.latency },
    };
    expect(histogramCountProblem(swapped, 'r.json')).toMatch(
      /^\/histograms\/latency: holds \d+ values, but \/summary\/requests is 100 \(/,
    );
  });

  // Found by the result-file property: schedule lag histograms were not checked at first.
  it('checks the schedule lag per phase against that phase’s requests', () => {
    const { warmup, steady } = result.histograms.scheduleLagByPhase!;
    const swapped = {
      ...result,
      histograms: { ...result.histograms, scheduleLagByPhase: { warmup: steady!, steady: warmup! } },
    };
    expect(histogramCountProblem(swapped, 'r.json')).toBe(
      '/histograms/scheduleLagByPhase/warmup: holds 60 values, but /byPhase/warmup/requests is 40 (histograms from another run or section?)',
    );
  });
});
