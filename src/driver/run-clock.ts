/**
 * The run's clock: monotonic milliseconds since the run's origin (when load starts), plus the
 * wall-clock instant of that origin for the result file. Before `start()` it reads 0, so token
 * requests made while preparing are stamped at the origin.
 */
import { performance } from 'node:perf_hooks';

export class RunClock {
  private originMs = Number.NaN;
  /** Wall-clock time of the origin (epoch ms); NaN until started. */
  originEpochMs = Number.NaN;

  start(): void {
    this.originMs = performance.now();
    this.originEpochMs = Date.now();
  }

  /**
   * Start at a shared instant given as `performance.timeOrigin + performance.now()` of any thread
   * of this process (see sharedNowMs), so worker threads of one run share one origin and their
   * timelines line up second by second.
   */
  startAt(sharedOriginMs: number): void {
    this.originMs = sharedOriginMs - performance.timeOrigin;
    this.originEpochMs = sharedOriginMs;
  }

  get started(): boolean {
    return !Number.isNaN(this.originMs);
  }

  /** ms since the origin (0 before start). An arrow property, so it can be passed around unbound. */
  readonly now = (): number => (Number.isNaN(this.originMs) ? 0 : performance.now() - this.originMs);
}

/** A high-resolution instant comparable across the threads of this process (≈ epoch ms). */
export function sharedNowMs(): number {
  return performance.timeOrigin + performance.now();
}
