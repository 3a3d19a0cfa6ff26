/**
 * Everything one frame of the run dashboard is drawn from: plain data, so a frame is a pure
 * function of (model, size) and tests can render any state without a terminal.
 */
import type { LiveLoadGauges, LiveSnapshot } from '../../contract/live-snapshot.ts';
import type { RunHeader } from '../../contract/live-view.ts';

export interface RunFrameModel {
  readonly header: RunHeader;
  readonly snapshot: LiveSnapshot;
  /** The load's gauges of the same moment (offered rates, a replay's calls released); null before the load started. */
  readonly gauges: LiveLoadGauges | null;
  /** Why the run stops on its own (an abortOnFail threshold failed); null while it does not. */
  readonly stopReason: string | null;
  /** Outcome counts of an earlier snapshot (about RATE_WINDOW_MS ago) for recent rates; null early on. */
  readonly earlier: OutcomeMark | null;
  /** The user asked to stop; the run is finishing its in-flight requests. */
  readonly stopping: boolean;
  /** Lines the process wrote to stderr while the dashboard owned the terminal, newest last. */
  readonly notices: readonly string[];
  /** The help overlay is open. */
  readonly help: boolean;
}

/** Cumulative outcome counts at a moment of the run. */
export interface OutcomeMark {
  readonly elapsedMs: number;
  readonly outcomes: Readonly<Record<string, number>>;
}

/**
 * Whether the dashboard shows a row per workload: when the run has several, or a replay (its
 * progress). A run of one workload of generated load shows the overall figures only.
 */
export function showsWorkloads(header: RunHeader): boolean {
  const workloads = header.workloads ?? [];
  return workloads.length > 1 || workloads.some((w) => w.replay !== undefined);
}

/** Outcome rates are measured over about this long (the recorder's rpsLast10s window). */
export const RATE_WINDOW_MS = 10_000;

/**
 * The marks of the last RATE_WINDOW_MS: push each snapshot's counts, get back the oldest mark
 * still inside the window (or null while there is none yet). Memory: about 4 marks per second.
 */
export class RateWindow {
  private marks: OutcomeMark[] = [];

  constructor(private readonly windowMs = RATE_WINDOW_MS) {}

  push(mark: OutcomeMark): OutcomeMark | null {
    this.marks.push(mark);
    const cutoff = mark.elapsedMs - this.windowMs;
    // Keep the newest mark at or before the cutoff, so the window spans (close to) windowMs.
    let first = 0;
    while (first + 1 < this.marks.length - 1 && this.marks[first + 1]!.elapsedMs <= cutoff) first++;
    if (first > 0) this.marks = this.marks.slice(first);
    const earliest = this.marks[0]!;
    return earliest === mark ? null : earliest;
  }
}

/** Per-second rate of an outcome: since `earlier` when there is one, else the average since the start. */
export function outcomeRate(outcome: string, current: OutcomeMark, earlier: OutcomeMark | null): number {
  const now = current.outcomes[outcome] ?? 0;
  if (earlier !== null && current.elapsedMs > earlier.elapsedMs) {
    return (now - (earlier.outcomes[outcome] ?? 0)) / ((current.elapsedMs - earlier.elapsedMs) / 1000);
  }
  return current.elapsedMs > 0 ? now / (current.elapsedMs / 1000) : 0;
}
