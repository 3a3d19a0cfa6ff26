import { describe, expect, it } from 'vitest';
import { arrivalCount, arrivalOffsetMs, createPacer, releaseAtMs } from '../../src/driver/pacer.ts';
import { rateLoad } from '../../src/profile/phase-load.ts';
import { createRandom } from '../../src/util/random.ts';

describe('arrivalOffsetMs', () => {
  it.each([
    // constant rate: evenly spaced, first arrival at the phase start
    [rateLoad(100, 100), 10_000, 0, 0],
    [rateLoad(100, 100), 10_000, 1, 10],
    [rateLoad(100, 100), 10_000, 999, 9990],
    [rateLoad(20_000, 20_000), 1000, 3, 0.15],
    // ramp 0 → 100/s over 10 s: N(t) = 5t², so arrival 500 (the last) is due at 10 s
    [rateLoad(0, 100), 10_000, 500, 10_000],
    [rateLoad(0, 100), 10_000, 125, 5000],
    // ramp 100 → 0/s: half the arrivals come in the first ~2.93 s
    [rateLoad(100, 0), 10_000, 250, 2928.932],
    // a rate of zero never delivers
    [rateLoad(0, 0), 10_000, 1, Number.POSITIVE_INFINITY],
  ])('%j over %d ms: arrival %d due at %d ms', (load, durationMs, k, expectedMs) => {
    expect(arrivalOffsetMs(load, durationMs, k)).toBeCloseTo(expectedMs, 3);
  });

  it('has no cumulative drift over a long phase', () => {
    // 20k/s for one hour: the 72,000,000th arrival is still due exactly at 3600 s
    expect(arrivalOffsetMs(rateLoad(20_000, 20_000), 3_600_000, 72_000_000)).toBe(3_600_000);
  });

  it('is monotonic along a ramp', () => {
    const load = rateLoad(10, 2000);
    let previous = -1;
    for (let k = 0; k < arrivalCount(load, 30_000); k += 97) {
      const at = arrivalOffsetMs(load, 30_000, k);
      expect(at).toBeGreaterThan(previous);
      previous = at;
    }
  });
});

describe('arrivalCount', () => {
  it.each([
    [rateLoad(100, 100), 10_000, 1000],
    [rateLoad(0, 100), 10_000, 500],
    [rateLoad(3, 3), 1500, 5], // 4.5 expected: arrivals at 0, .33, .67, 1.0, 1.33 s
    [rateLoad(0.1, 0.1), 30_000, 3],
    [rateLoad(1 / 3, 1 / 3), 30_000, 10], // 9.999999… is 10, not 11
  ])('%j over %d ms → %d arrivals', (load, durationMs, expected) =>
    expect(arrivalCount(load, durationMs)).toBe(expected),
  );

  it('counts exactly the arrivals due before the end', () => {
    const load = rateLoad(3, 3);
    const count = arrivalCount(load, 1500);
    expect(arrivalOffsetMs(load, 1500, count - 1)).toBeLessThan(1500);
    expect(arrivalOffsetMs(load, 1500, count)).toBeGreaterThanOrEqual(1500);
  });
});

describe('createPacer', () => {
  it.each([
    // a constant rate asks for itself throughout the phase
    [rateLoad(50), 10_000, 0, 50],
    [rateLoad(50), 10_000, 9999, 50],
    // a ramp 10 → 110/s over 10 s: 60/s half-way
    [rateLoad(10, 110), 10_000, 5000, 60],
    [rateLoad(10, 110), 10_000, 0, 10],
    // outside the phase: nothing
    [rateLoad(50), 10_000, 10_000, 0],
    [rateLoad(50), 10_000, -1, 0],
  ])('%j over %d ms asks for, %d ms in, %d arrivals/s', (load, durationMs, elapsedMs, expectedPerS) => {
    expect(createPacer(load, durationMs).rateAt(elapsedMs)).toBeCloseTo(expectedPerS, 9);
  });

  it('schedules exactly the arrivals of the phase, then none', () => {
    const load = rateLoad(3);
    const pacer = createPacer(load, 1500);
    const count = arrivalCount(load, 1500);
    for (let k = 0; k < count; k++) expect(pacer.dueOffsetMs(k)).toBe(arrivalOffsetMs(load, 1500, k));
    expect(pacer.dueOffsetMs(count)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('releaseAtMs', () => {
  it.each([
    // on schedule: released when due
    [100, 90, 10, 2, 100],
    // behind after a stall: spaced at twice the nominal rate instead of all at once
    [100, 200, 10, 2, 205],
    // exactly on the catch-up boundary
    [105, 100, 10, 2, 105],
  ])('due %d, previous release %d, interval %d, factor %d → %d', (due, previous, interval, factor, expected) => {
    expect(releaseAtMs(due, previous, interval, factor)).toBe(expected);
  });

  it('drains a 100 ms backlog at 1 kHz in about 100 ms at factor 2', () => {
    let release = 100; // the loop woke up at t=100 ms having missed arrivals due at 0..99 ms
    for (let k = 1; k < 100; k++) release = releaseAtMs(k, release, 1, 2);
    expect(release).toBeCloseTo(149.5, 6); // 99 arrivals half a millisecond apart
    for (let k = 100; k < 300; k++) release = releaseAtMs(k, release, 1, 2);
    expect(release).toBe(299); // back on schedule
  });
});

describe('Poisson arrivals', () => {
  /** Every arrival offset of a Poisson phase (asked in order, as the open loop does). */
  const offsets = (load: ReturnType<typeof rateLoad>, durationMs: number, seed: number): number[] => {
    const pacer = createPacer(load, durationMs, 'poisson', createRandom(seed));
    const out: number[] = [];
    for (let k = 0; ; k++) {
      const at = pacer.dueOffsetMs(k);
      if (!Number.isFinite(at)) return out;
      expect(pacer.dueOffsetMs(k)).toBe(at); // asking again gives the same time
      out.push(at);
    }
  };

  it('has exponential gaps at the rate: mean 1/rate, coefficient of variation ≈ 1', () => {
    const at = offsets(rateLoad(1000), 60_000, 42);
    const gaps = at.slice(1).map((t, i) => t - at[i]!);
    const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
    const sd = Math.sqrt(gaps.reduce((a, g) => a + (g - mean) ** 2, 0) / gaps.length);
    expect(mean).toBeCloseTo(1, 1);
    expect(sd / mean).toBeGreaterThan(0.97);
    expect(sd / mean).toBeLessThan(1.03);
  });

  it('holds rate × duration arrivals within Poisson’s spread, over many seeds', () => {
    // 200/s for 10 s: mean 2000, sd √2000 ≈ 45; every count within 4 sd, and their mean close to 2000
    const counts = Array.from({ length: 40 }, (_, seed) => offsets(rateLoad(200), 10_000, seed).length);
    for (const n of counts) expect(Math.abs(n - 2000)).toBeLessThan(4 * Math.sqrt(2000));
    const mean = counts.reduce((a, b) => a + b, 0) / counts.length;
    expect(Math.abs(mean - 2000)).toBeLessThan(4 * Math.sqrt(2000 / counts.length));
    expect(new Set(counts).size).toBeGreaterThan(5); // really random, not a fixed count
  });

  it('follows a ramp: arrivals per second grow with the rate', () => {
    // 0 → 400/s over 10 s: N(t) = 20 t², so ~500 by 5 s and ~2000 by 10 s
    const at = offsets(rateLoad(0, 400), 10_000, 3);
    expect(Math.abs(at.length - 2000)).toBeLessThan(4 * Math.sqrt(2000));
    const firstHalf = at.filter((t) => t < 5000).length;
    expect(Math.abs(firstHalf - 500)).toBeLessThan(4 * Math.sqrt(500));
  });

  it('is reproducible from the seed', () => {
    expect(offsets(rateLoad(50), 2000, 9)).toEqual(offsets(rateLoad(50), 2000, 9));
    expect(offsets(rateLoad(50), 2000, 9)).not.toEqual(offsets(rateLoad(50), 2000, 10));
  });
});
