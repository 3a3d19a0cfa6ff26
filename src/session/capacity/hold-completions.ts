/**
 * The responses one workload received during a capacity step's measured hold, while other
 * workloads run beside it. The run's timeline counts everyone's completions, so the searched
 * workload's are read off its selection (kept by the step's recorder) as the hold starts and as it
 * ends — a few milliseconds late at both ends, which cancels out — and the difference taken.
 */
import type { RunningLoad } from '../load.ts';

/** How often the step's clock is looked at. */
const POLL_MS = 10;

export interface HoldCompletions {
  /** Responses between the hold's start and end; null until both were read. */
  completed(): number | null;
  stop(): void;
}

const requestsIn = (outcomes: Readonly<Record<string, number>> | undefined): number =>
  Object.values(outcomes ?? {}).reduce((sum, n) => sum + n, 0);

/** Read selection `key`'s completed requests at `warmUpMs` and `warmUpMs + holdMs` into the running step. */
export function watchHoldCompletions(
  load: Pick<RunningLoad, 'clock' | 'selections'>,
  key: string,
  warmUpMs: number,
  holdMs: number,
): HoldCompletions {
  // Nothing has completed before a step without warm-up starts.
  let atStart: number | null = warmUpMs <= 0 ? 0 : null;
  let atEnd: number | null = null;
  let reading = false;
  const read = async (): Promise<number> => requestsIn((await load.selections())[key]?.outcomes);
  const timer = setInterval(() => {
    if (reading || !load.clock.started) return;
    const nowMs = load.clock.now();
    const due = atStart === null ? nowMs >= warmUpMs : nowMs >= warmUpMs + holdMs;
    if (!due) return;
    reading = true;
    read()
      .then((n) => {
        if (atStart === null) atStart = n;
        else {
          atEnd = n;
          clearInterval(timer);
        }
      })
      .catch(() => clearInterval(timer))
      .finally(() => (reading = false));
  }, POLL_MS);
  timer.unref();
  return {
    completed: () => (atStart === null || atEnd === null ? null : atEnd - atStart),
    stop: () => clearInterval(timer),
  };
}
