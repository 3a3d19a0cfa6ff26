import { performance } from 'node:perf_hooks';

/**
 * The run's clock: monotonic milliseconds since the run's origin (when load starts), plus the
 * wall-clock instant of that origin for the result file. Before `start()` it reads 0, so token
 * requests made while preparing are stamped at the origin.
 */
export class RunClock {
  private originMs = Number.NaN;
  /** Wall-clock time of the origin (epoch ms); NaN until started. */
  originEpochMs = Number.NaN;

  start(): void {
    this.originMs = performance.now();
    this.originEpochMs = Date.now();
  }

  get started(): boolean {
    return !Number.isNaN(this.originMs);
  }

  /** ms since the origin (0 before start). An arrow property, so it can be passed around unbound. */
  readonly now = (): number => (Number.isNaN(this.originMs) ? 0 : performance.now() - this.originMs);
}
