import { describe, expect, it } from 'vitest';
import { arrivalCount, arrivalOffsetMs, releaseAtMs } from '../../src/driver/pacer.ts';

describe('arrivalOffsetMs', () => {
  it.each([
    // constant rate: evenly spaced, first arrival at the phase start
    [{ fromPerS: 100, toPerS: 100 }, 10_000, 0, 0],
    [{ fromPerS: 100, toPerS: 100 }, 10_000, 1, 10],
    [{ fromPerS: 100, toPerS: 100 }, 10_000, 999, 9990],
    [{ fromPerS: 20_000, toPerS: 20_000 }, 1000, 3, 0.15],
    // ramp 0 → 100/s over 10 s: N(t) = 5t², so arrival 500 (the last) is due at 10 s
    [{ fromPerS: 0, toPerS: 100 }, 10_000, 500, 10_000],
    [{ fromPerS: 0, toPerS: 100 }, 10_000, 125, 5000],
    // ramp 100 → 0/s: half the arrivals come in the first ~2.93 s
    [{ fromPerS: 100, toPerS: 0 }, 10_000, 250, 2928.932],
    // a rate of zero never delivers
    [{ fromPerS: 0, toPerS: 0 }, 10_000, 1, Number.POSITIVE_INFINITY],
  ])('%j over %d ms: arrival %d due at %d ms', (load, durationMs, k, expectedMs) => {
    expect(arrivalOffsetMs(load, durationMs, k)).toBeCloseTo(expectedMs, 3);
  });

  it('has no cumulative drift over a long phase', () => {
    // 20k/s for one hour: the 72,000,000th arrival is still due exactly at 3600 s
    expect(arrivalOffsetMs({ fromPerS: 20_000, toPerS: 20_000 }, 3_600_000, 72_000_000)).toBe(3_600_000);
  });

  it('is monotonic along a ramp', () => {
    const load = { fromPerS: 10, toPerS: 2000 };
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
    [{ fromPerS: 100, toPerS: 100 }, 10_000, 1000],
    [{ fromPerS: 0, toPerS: 100 }, 10_000, 500],
    [{ fromPerS: 3, toPerS: 3 }, 1500, 5], // 4.5 expected: arrivals at 0, .33, .67, 1.0, 1.33 s
    [{ fromPerS: 0.1, toPerS: 0.1 }, 30_000, 3],
    [{ fromPerS: 1 / 3, toPerS: 1 / 3 }, 30_000, 10], // 9.999999… is 10, not 11
  ])('%j over %d ms → %d arrivals', (load, durationMs, expected) => expect(arrivalCount(load, durationMs)).toBe(expected));

  it('counts exactly the arrivals due before the end', () => {
    const load = { fromPerS: 3, toPerS: 3 };
    const count = arrivalCount(load, 1500);
    expect(arrivalOffsetMs(load, 1500, count - 1)).toBeLessThan(1500);
    expect(arrivalOffsetMs(load, 1500, count)).toBeGreaterThanOrEqual(1500);
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
