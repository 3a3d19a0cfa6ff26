/**
 * A live view is an optional consumer of recorder snapshots with its own frame rate: it pulls,
 * it never blocks the driver, and it can always be stopped. Plain progress lines and the blessed
 * dashboard both implement it.
 */
import type { CapacityStep } from './capacity-schema.ts';
import type { LiveLoadGauges, LiveSnapshot } from './live-snapshot.ts';

export interface RunHeader {
  readonly profile: string;
  readonly target: string;
  /** "rate 100/s", "ramp 10→200/s", "concurrency 8", or a mix. */
  readonly model: string;
  readonly phases: readonly PhaseInfo[];
  readonly totalDurationMs: number;
  readonly resultPath: string;
  /**
   * The rate-limit contract the clients panel measures quota use against (`limit` requests per
   * `windowMs` per client ID). Optional: without it the panel shows admitted counts only.
   */
  readonly rateLimit?: { readonly limit: number; readonly windowMs: number } | null;
  /** The run's workloads in the plan's order (absent: one, described by the phases). */
  readonly workloads?: readonly WorkloadInfo[];
  /** The SLO's latency bound (ms) a success must meet to count as goodput; null or absent: there is none. */
  readonly goodputBoundMs?: number | null;
}

/** One workload as the live views are told it up front. */
export interface WorkloadInfo {
  readonly name: string;
  /** "rate 40/s", "concurrency 2", "3 iterations per client", "replay ×2". */
  readonly load: string;
  /** Whether a phase of it offers arrivals per second (a rate, a recording); false for users and iterations. */
  readonly open: boolean;
  /** Where it plays on the run's clock (ms): from its start to its last phase's end. */
  readonly startMs: number;
  readonly endMs: number;
  /** A replay workload's recording. */
  readonly replay?: ReplayInfo;
}

/** What a replay's progress is measured against. */
export interface ReplayInfo {
  /** The recording's base name. */
  readonly fileName: string;
  readonly speed: number;
  readonly loop: boolean;
  /** Calls in one pass of its window. */
  readonly callsInWindow: number;
  /** The most calls it sends in all (-n); null: its window, once or (looping) until its end. */
  readonly maxCalls: number | null;
  /** One pass of the window at its speed (ms). */
  readonly passMs: number;
}

export interface PhaseInfo {
  readonly name: string;
  readonly durationMs: number;
  readonly load: string;
}

export interface ViewSource {
  readonly header: RunHeader;
  /** Pull a fresh snapshot (cheap; called a few times a second). */
  snapshot(): LiveSnapshot;
  /** What only the running load knows now (offered rates, a replay's calls released); null before it started. */
  gauges?(): LiveLoadGauges | null;
  /** Why the run is stopping on its own (an abortOnFail threshold failed); null while it is not. */
  stopReason?(): string | null;
}

export interface LiveView {
  start(): void;
  /** Stop drawing and restore whatever the view changed (e.g. the terminal). */
  stop(): void;
}

/** What the verify view is told up front: the target, the checks that will report, the result file. */
export interface VerifyHeader {
  readonly target: string;
  /** In display order; progress for an id not listed here is shown too, after these. */
  readonly checkIds: readonly string[];
  readonly resultPath: string;
}

/** A check's state as the verifier reports it. */
export type CheckState = 'waiting' | 'running' | 'pass' | 'fail' | 'skip';

/** One progress record from the verifier: a check changed state (`atMs` since the verify run started). */
export interface CheckProgress {
  readonly id: string;
  readonly state: CheckState;
  /** One-line reason (verdicts) or what is happening (running); may come from the server. */
  readonly detail: string;
  readonly atMs: number;
}

/** A live view of a verify run: progress is pushed (records are rare), drawing is the view's own business. */
export interface VerifyView extends LiveView {
  onProgress(record: CheckProgress): void;
}

/** One step of a capacity search as planned: the load it holds, and the phases that carry it. */
export interface CapacityStepDefinition {
  readonly index: number;
  readonly kind: 'search' | 'confirm';
  readonly model: 'open' | 'closed';
  /** Arrivals per second (open model) or users (closed model). */
  readonly load: number;
  readonly phase: string;
  readonly warmUpPhase: string | null;
  readonly warmUpMs: number;
  readonly holdMs: number;
}

/** Where a capacity search stands: the highest load that passed and the lowest that failed so far. */
export interface CapacityBracket {
  readonly lastPass: number | null;
  readonly firstFail: number | null;
}

/**
 * What the capacity view is told: a step has started (with its running load to pull snapshots
 * from), or a step has been judged.
 */
export type CapacityProgress =
  | {
      readonly kind: 'step-start';
      readonly step: CapacityStepDefinition;
      readonly load: Pick<ViewSource, 'snapshot'>;
      readonly bracket: CapacityBracket;
    }
  | { readonly kind: 'step-done'; readonly step: CapacityStep; readonly bracket: CapacityBracket };
