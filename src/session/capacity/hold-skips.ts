/**
 * The arrivals a capacity step skipped during its measured hold, by reason. The recorder counts
 * skipped arrivals for the whole step; the warm-up's are read off the step's live snapshots as
 * the warm-up ends (a few tens of milliseconds early at most) and taken away. With workloads
 * beside the searched one, only the searched workload's skips count.
 */
import type { LiveSnapshot } from '../../contract/live-snapshot.ts';

/** How often the step's snapshot is read while its warm-up lasts. */
const POLL_MS = 50;

export interface WarmUpSkips {
  /** The skips counted up to the last snapshot taken within the warm-up. */
  beforeHold(): Readonly<Record<string, number>>;
  stop(): void;
}

/**
 * Follow a running step's skipped arrivals until its warm-up of `warmUpMs` has passed: all of
 * them, or (`workload` named) that workload's.
 */
export function watchWarmUpSkips(
  load: { snapshot(): LiveSnapshot },
  warmUpMs: number,
  workload: string | null = null,
): WarmUpSkips {
  let before: Readonly<Record<string, number>> = {};
  const timer =
    warmUpMs <= 0
      ? null
      : setInterval(() => {
          const snapshot = load.snapshot();
          if (snapshot.elapsedMs <= warmUpMs)
            before = workload === null ? snapshot.skipped : (snapshot.skippedByWorkload?.[workload] ?? {});
          else clearInterval(timer!);
        }, POLL_MS);
  timer?.unref();
  return {
    beforeHold: () => before,
    stop: () => {
      if (timer !== null) clearInterval(timer);
    },
  };
}

/** The step's skips less those of its warm-up, by reason. */
export function skippedInHold(
  step: Readonly<Record<string, number>>,
  beforeHold: Readonly<Record<string, number>>,
): Record<string, number> {
  const hold: Record<string, number> = {};
  for (const [reason, count] of Object.entries(step)) {
    const inHold = count - (beforeHold[reason] ?? 0);
    if (inHold > 0) hold[reason] = inHold;
  }
  return hold;
}
