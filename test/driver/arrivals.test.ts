// test-pass: quiet
/**
 * Arrival processes and think times as a server on 127.0.0.1 in this process sees them: judged on
 * the gaps between requests, which CPU starvation by other test files distorts (CI failed it three
 * times in the load pass: a uniform think's spread, its mean, and a Poisson run's jitter-corrected
 * variation at 0.59 while the evenly spaced run beside it read a 7 ms spread on 10 ms gaps). So it
 * runs in the quiet pass, alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SECRET, runPlan, testPlan } from '../support/load-run.ts';
import { startStatefulApi, type StatefulApi } from '../support/stateful-api.ts';

/** Mean and coefficient of variation (sd / mean) of a list of numbers. */
function spread(values: readonly number[]): { mean: number; cv: number } {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const sd = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / values.length);
  return { mean, cv: sd / mean };
}

/**
 * Without the longest 1 %: on a busy shared machine an event-loop stall of ~100 ms now and then
 * (e^-10 likely for a true gap at this rate) would dominate the spread. An exponential cut at its
 * 99th percentile still has a coefficient of variation of ~0.93; evenly spaced gaps stay near 0.
 */
const trimmed = (gaps: readonly number[]): number[] =>
  [...gaps].sort((a, b) => a - b).slice(0, Math.floor(gaps.length * 0.99));

const gapsOf = (times: readonly number[]): number[] => times.slice(1).map((t, i) => t - times[i]!);

/**
 * Interquartile range over the median: the shape of a distribution that a few stalls cannot move
 * (a quarter of the values may be anything). Uniform on [100, 300] gives 0.5, an exponential ~1.6,
 * a constant 0. (CI once read a uniform think time's coefficient of variation at 0.54 against 0.29:
 * a handful of pauses stretched by a busy machine.)
 */
function quartileSpread(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.floor((sorted.length - 1) * q)]!;
  return (at(0.75) - at(0.25)) / at(0.5);
}

describe('arrival processes and think times, measured at the server', () => {
  let api: StatefulApi;
  beforeAll(async () => (api = await startStatefulApi({ secret: DEMO_SECRET })));
  afterAll(() => api.close());

  /**
   * A 5 s phase of 100/s as `arrivals`, its requests named `method`: when each reached the server,
   * and how many arrivals the generator skipped (a busy machine stalling it at the phase's end).
   */
  const arrivalsAtServer = async (
    arrivals: 'uniform' | 'poisson',
    method: string,
  ): Promise<{ atMs: number[]; skipped: number }> => {
    const plan = testPlan(
      { scenarios: [{ steps: [{ method }] }], phases: [{ duration: '5s', rate: 100, arrivals }], seed: 11 },
      api.url,
    );
    const { result } = await runPlan(plan, api.url);
    const skipped = Object.values(result.summary.skipped).reduce((a, b) => a + b, 0);
    return { atMs: api.log.filter((c) => c.method === method).map((c) => c.atMs), skipped };
  };

  it('Poisson: inter-arrival coefficient of variation ≈ 1 and a count within Poisson’s spread; uniform: evenly spaced', async () => {
    // Both at once, so they share whatever timer jitter this machine adds: the evenly spaced run measures it.
    const [poissonRun, uniformRun] = await Promise.all([
      arrivalsAtServer('poisson', 'poisson.ping'),
      arrivalsAtServer('uniform', 'uniform.ping'),
    ]);
    const [poisson, uniform] = [poissonRun.atMs, uniformRun.atMs];
    // 100/s for 5 s: 500 expected, sd √500 ≈ 22
    expect(Math.abs(poisson.length + poissonRun.skipped - 500)).toBeLessThan(4 * Math.sqrt(500));
    expect(uniform.length + uniformRun.skipped).toBe(500);
    expect(uniformRun.skipped).toBeLessThan(50); // (a loaded CI machine once stalled it for 100 ms at the end)
    const p = spread(trimmed(gapsOf(poisson)));
    const u = spread(trimmed(gapsOf(uniform)));
    expect(p.mean).toBeGreaterThan(6.5); // the trimmed 1 % takes ~5 % off an exponential mean of 10
    expect(p.mean).toBeLessThan(12);
    // The process's own spread: the observed variance less the jitter's (what the evenly spaced gaps show).
    const cv = Math.sqrt(Math.max(0, (p.cv * p.mean) ** 2 - (u.cv * u.mean) ** 2)) / p.mean;
    // ≈ 1 (an exponential's), with room for a busy machine's timers; evenly spaced arrivals would give ≈ 0.
    expect(cv).toBeGreaterThan(0.7);
    expect(cv).toBeLessThan(1.4);
    expect(u.cv).toBeLessThan(p.cv);
  });

  it.each<[string, unknown, number, [number, number]]>([
    // think { uniform: [100ms, 300ms] }: mean 200 ms, all within the bounds (plus the first step's latency); IQR/median 0.5
    ['uniform', { uniform: ['100ms', '300ms'] }, 200, [0.3, 0.75]],
    // think { exponential: 150ms }: mean 150 ms, spread like an exponential (IQR/median 1.58, less the reply time added to each)
    ['exponential', { exponential: '150ms' }, 150, [1.1, 2.2]],
  ])('think %s: the pauses between steps follow the distribution', async (_name, think, meanMs, [low, high]) => {
    const from = api.log.length;
    const plan = testPlan(
      {
        scenarios: [
          {
            steps: [
              { method: 'first', args: { n: '{{iteration}}' }, think },
              { method: 'second', args: { n: '{{iteration}}' } },
            ],
          },
        ],
        phases: [{ duration: '4s', rate: 50 }],
        seed: 5,
      },
      api.url,
    );
    await runPlan(plan, api.url);
    const calls = api.log.slice(from);
    const firstAt = new Map(calls.filter((c) => c.method === 'first').map((c) => [c.args.n as number, c.atMs]));
    const pauses = calls
      .filter((c) => c.method === 'second' && firstAt.has(c.args.n as number))
      .map((c) => c.atMs - firstAt.get(c.args.n as number)!);
    expect(pauses.length).toBeGreaterThan(100);
    if (_name === 'uniform') expect(Math.min(...pauses)).toBeGreaterThanOrEqual(99);
    const s = spread(pauses);
    // The pause at the server adds the first step's reply time and timer lateness: a few ms, tens on a busy machine.
    expect(s.mean).toBeGreaterThan(meanMs * 0.85);
    expect(s.mean).toBeLessThan(meanMs * 1.3 + 60);
    const shape = quartileSpread(pauses);
    expect(shape).toBeGreaterThan(low);
    expect(shape).toBeLessThan(high);
  });
});
