import { describe, expect, it } from 'vitest';
import { fitUsl, uslThroughput } from '../../src/session/capacity/usl.ts';

describe('the Universal Scalability Law fit', () => {
  it('recovers known coefficients from exact points, with the peak where the law puts it', () => {
    const truth = { sigma: 0.05, kappa: 0.002, lambda: 120 };
    const points = [1, 2, 4, 8, 16, 24, 32, 48, 64].map((n) => ({ n, x: uslThroughput(truth, n) }));
    const fit = fitUsl(points)!;
    expect(fit.sigma).toBeCloseTo(0.05, 4);
    expect(fit.kappa).toBeCloseTo(0.002, 5);
    expect(fit.lambda).toBeCloseTo(120, 2);
    expect(fit.peakConcurrency).toBeCloseTo(Math.sqrt(0.95 / 0.002), 2);
    expect(fit.peakThroughputPerS).toBeCloseTo(uslThroughput(truth, Math.sqrt(0.95 / 0.002)), 2);
    expect(fit.rmsRelativeError).toBeLessThan(1e-6);
  });

  it('recovers them within a few percent from noisy points, and says how far off the fit is', () => {
    const truth = { sigma: 0.1, kappa: 0.001, lambda: 50 };
    // ±3 % deterministic "noise", alternating in sign.
    const points = [1, 2, 3, 5, 8, 13, 21, 34, 55].map((n, i) => ({
      n,
      x: uslThroughput(truth, n) * (i % 2 === 0 ? 1.03 : 0.97),
    }));
    const fit = fitUsl(points)!;
    expect(fit.sigma).toBeGreaterThan(0.07);
    expect(fit.sigma).toBeLessThan(0.13);
    expect(fit.kappa).toBeGreaterThan(0.0005);
    expect(fit.kappa).toBeLessThan(0.0015);
    expect(fit.rmsRelativeError).toBeGreaterThan(0.01);
    expect(fit.rmsRelativeError).toBeLessThan(0.06);
  });

  it('has no peak for linear scaling, and needs three concurrencies', () => {
    const linear = fitUsl([1, 2, 4, 8].map((n) => ({ n, x: 10 * n })))!;
    expect(linear).toMatchObject({ sigma: 0, kappa: 0, lambda: 10, peakConcurrency: null });
    expect(
      fitUsl([
        { n: 1, x: 10 },
        { n: 2, x: 19 },
      ]),
    ).toBeNull();
  });
});
