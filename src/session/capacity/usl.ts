/**
 * The Universal Scalability Law (Gunther): throughput at concurrency N is
 * X(N) = λN / (1 + σ(N − 1) + κN(N − 1)), with λ the throughput of one user, σ contention and κ
 * coherency. Fitted by least squares on the linearised form N/X = (1/λ)(1 + σ(N − 1) + κN(N − 1)),
 * i.e. N/X = a + b(N − 1) + c·N(N − 1) with λ = 1/a, σ = b/a, κ = c/a (nonnegative coefficients
 * are clamped to 0 and the rest refitted). The peak is at N* = √((1 − σ)/κ).
 */
import type { UslFit } from '../../contract/capacity-schema.ts';

export interface UslPoint {
  /** Concurrency. */
  readonly n: number;
  /** Throughput (per second). */
  readonly x: number;
}

/** Solve the normal equations of least squares y ≈ Σ βj·fj for the given feature columns. */
function leastSquares(rows: readonly number[][], y: readonly number[]): number[] | null {
  const k = rows[0]?.length ?? 0;
  const a = Array.from({ length: k }, () => new Array<number>(k + 1).fill(0));
  rows.forEach((row, r) => {
    for (let i = 0; i < k; i++) {
      for (let j = 0; j < k; j++) a[i]![j]! += row[i]! * row[j]!;
      a[i]![k]! += row[i]! * y[r]!;
    }
  });
  // Gaussian elimination with partial pivoting.
  for (let col = 0; col < k; col++) {
    let pivot = col;
    for (let r = col + 1; r < k; r++) if (Math.abs(a[r]![col]!) > Math.abs(a[pivot]![col]!)) pivot = r;
    if (Math.abs(a[pivot]![col]!) < 1e-300) return null;
    [a[col], a[pivot]] = [a[pivot]!, a[col]!];
    for (let r = 0; r < k; r++) {
      if (r === col) continue;
      const f = a[r]![col]! / a[col]![col]!;
      for (let c = col; c <= k; c++) a[r]![c]! -= f * a[col]![c]!;
    }
  }
  return a.map((row, i) => row[k]! / row[i]!);
}

/** X(N) under the fitted law. */
export function uslThroughput(fit: Pick<UslFit, 'sigma' | 'kappa' | 'lambda'>, n: number): number {
  return (fit.lambda * n) / (1 + fit.sigma * (n - 1) + fit.kappa * n * (n - 1));
}

/** Fit the law to the points (at least 3 distinct concurrencies with throughput > 0), else null. */
export function fitUsl(points: readonly UslPoint[]): UslFit | null {
  const usable = points.filter((p) => p.n >= 1 && p.x > 0);
  if (new Set(usable.map((p) => p.n)).size < 3) return null;
  const y = usable.map((p) => p.n / p.x);
  const features = { sigma: (p: UslPoint) => p.n - 1, kappa: (p: UslPoint) => p.n * (p.n - 1) };
  // Fit with both terms; a negative coefficient means that term is absent: drop it and refit.
  let kept: (keyof typeof features)[] = ['sigma', 'kappa'];
  let beta: number[] | null = null;
  for (let round = 0; round < 3; round++) {
    beta = leastSquares(
      usable.map((p) => [1, ...kept.map((name) => features[name](p))]),
      y,
    );
    if (beta === null) return null;
    const negative = kept.filter((_, i) => beta![i + 1]! < 0);
    if (negative.length === 0) break;
    kept = kept.filter((name) => !negative.includes(name));
  }
  const [a, ...rest] = beta!;
  if (!(a! > 0)) return null;
  const coefficient = (name: keyof typeof features): number => {
    const i = kept.indexOf(name);
    return i === -1 ? 0 : Math.max(0, rest[i]!) / a!;
  };
  const lambda = 1 / a!;
  const sigma = coefficient('sigma');
  const kappa = coefficient('kappa');
  const peakConcurrency = kappa > 0 && sigma < 1 ? Math.sqrt((1 - sigma) / kappa) : null;
  const fit = { sigma, kappa, lambda };
  const errors = usable.map((p) => (uslThroughput(fit, p.n) - p.x) / p.x);
  const round6 = (v: number): number => Math.round(v * 1e6) / 1e6;
  return {
    sigma: round6(sigma),
    kappa: round6(kappa),
    lambda: round6(lambda),
    peakConcurrency: peakConcurrency === null ? null : round6(peakConcurrency),
    peakThroughputPerS: peakConcurrency === null ? null : round6(uslThroughput(fit, peakConcurrency)),
    rmsRelativeError: round6(Math.sqrt(errors.reduce((s, e) => s + e * e, 0) / errors.length)),
    points: usable.length,
  };
}
