/**
 * What the driver tells the recorder about one finished API request. Dimensions are indices into
 * the names the recorder was built with (see RecorderDimensions), so the hot path never builds
 * strings. The recorder copies what it needs synchronously: a driver may reuse one mutable object
 * that satisfies this interface for many requests.
 */
export interface Sample {
  /** Index into `RecorderDimensions.methods`. */
  readonly methodIndex: number;
  /**
   * Index into `RecorderDimensions.steps` (the plan's steps, scenario by scenario): what workload,
   * scenario and tag slices are summed from. Read only when the dimensions have steps (else the
   * method is the step); absent: the method's.
   */
  readonly stepIndex?: number;
  /** Index into `RecorderDimensions.phases`. */
  readonly phaseIndex: number;
  /** Index into `RecorderDimensions.clients`. */
  readonly clientIndex: number;
  /** Index into `RecorderDimensions.replicas` (the route that carried it); ignored without replicas. */
  readonly replicaIndex?: number;
  /** Outcome key: success, error:<code>, http:<status>, transport:<code>, envelope_violation, content_encoding:<coding>. */
  readonly outcome: string;
  /** HTTP status code; 0 when no response arrived (transport outcome). */
  readonly status: number;
  /** When the request was actually sent, ms since the run's monotonic origin. */
  readonly sentAtMs: number;
  /** When the response (or failure) completed, ms since the run's monotonic origin. */
  readonly doneAtMs: number;
  /** Latency in µs: from the intended start (open model) or from the send (closed model). */
  readonly latencyUs: number;
  /** Service time in µs: from the actual send to the end of the response. */
  readonly serviceUs: number;
  /** Schedule lag in µs (actual send − intended start); NO_LAG in the closed model. */
  readonly lagUs: number;
  /**
   * Retry-After seconds of a 429 (integer ≥ 0); RETRY_AFTER_ABSENT when absent or not a 429,
   * RETRY_AFTER_UNUSABLE when it cannot be followed (api/retry-after.ts).
   */
  readonly retryAfterS: number;
  /**
   * Set only on the first request a client sends after sitting out a Retry-After back-off:
   * how long it actually waited since receiving the 429 (ms), else NO_BACKOFF.
   */
  readonly backoffWaitedMs: number;
  /** The Retry-After (s, in the compact form of `retryAfterS`) that back-off honoured, else NO_BACKOFF. */
  readonly backoffRetryAfterS: number;
  /** Short sanitized description for failures (error log pane); empty for successes. */
  readonly detail: string;
  /**
   * The request's W3C trace id (four 32-bit words, most significant first) and span id (two), and
   * its trace flags (TRACE_SAMPLED, TRACE_SENT of exemplars.ts): what its exemplar names. Absent = zeros.
   */
  readonly trace0?: number;
  readonly trace1?: number;
  readonly trace2?: number;
  readonly trace3?: number;
  readonly span0?: number;
  readonly span1?: number;
  readonly traceFlags?: number;
}

/** `lagUs` of a request without an intended start (closed model): it has no schedule to lag behind. */
export const NO_LAG = -1;
/** `backoffWaitedMs` and `backoffRetryAfterS` of a request that is not a client's first after a back-off. */
export const NO_BACKOFF = -1;

/** One token request (never mixed into the API's latency figures). */
export interface TokenSample {
  readonly clientIndex: number;
  /** success, error:<oauth error>, http:<status>, transport:<code>, envelope_violation. */
  readonly outcome: string;
  readonly latencyUs: number;
  readonly doneAtMs: number;
  readonly detail: string;
}

/** The names behind the indices in a Sample, fixed when the recorder is built. */
export interface RecorderDimensions {
  readonly methods: readonly string[];
  readonly phases: readonly string[];
  readonly clients: readonly string[];
  /** The replicas the load was spread over (their base URLs); absent or empty = the target alone. */
  readonly replicas?: readonly string[];
  /** Workload names; absent = one workload, "default", of every phase. */
  readonly workloads?: readonly string[];
  /** The workload (index into `workloads`) of each phase. */
  readonly phaseWorkloads?: readonly number[];
  /** The plan's steps, scenario by scenario: each its method (index into `methods`) and its tags ("key:value"); absent = one step per method. */
  readonly steps?: readonly StepDimension[];
  /** Threshold selections: each its key, the cells (`phase × steps + step`) it picks and the client it names (null: any). */
  readonly selections?: readonly SelectionDimension[];
  /** The SLO's latency bound (ms) a success must meet to count as goodput in the live figures; absent or null: every success counts. */
  readonly goodputBoundMs?: number | null;
}

export interface StepDimension {
  readonly method: number;
  readonly tags: readonly string[];
}

export interface SelectionDimension {
  /** The selector's canonical text (profile/thresholds.ts selectorKeyOf). */
  readonly key: string;
  readonly cells: readonly number[];
  readonly client: number | null;
}
