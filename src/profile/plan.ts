/**
 * The resolved, frozen form of a profile: nothing optional, every default applied, durations in
 * ms, templates checked, thresholds parsed. Plain, structured-cloneable data: the driver and its
 * worker threads consume it as it is; user-facing optionality lives in the profile schema.
 */
import type { AssertionAlg, AssertionKey } from '../api/client-assertion.ts';
import type { ClientTlsIdentity, HttpVersion } from '../api/dispatcher.ts';
import type { ClientAuthMethod } from '../api/token.ts';
import type { RateLimitContract } from '../contract/rate-limit.ts';
import type { CapacityPlan } from './capacity-settings.ts';
import type { PhaseLoad } from './phase-load.ts';
import type { ParsedThreshold } from './thresholds.ts';
import type { ReplayPlan, ReplaySettings } from './replay-settings.ts';
import type { ServerOptions } from '../server/options.ts';

export interface Plan {
  /** Profile name (its `name`, else the file's base name without .json). */
  readonly name: string;
  /** Path of the profile file it came from ('' when built from flags alone). */
  readonly source: string;
  /** Base URL without trailing slash; null → start the embedded reference server. */
  readonly target: string | null;
  /**
   * Replicas of the API reached directly, without trailing slashes; empty = none. A run spreads its
   * requests over them (tokens come from the target).
   */
  readonly replicas: readonly string[];
  /** With replicas: a replica per request (round robin), or one per client (its index modulo the replicas). */
  readonly replicaAffinity: ReplicaAffinity;
  /** Options for the embedded server (used only when target is null); its clients (and their public keys) come from `clients`. */
  readonly embeddedServer: Readonly<
    Omit<ServerOptions, 'clients' | 'clientPattern' | 'clientKeys' | 'clientCa' | 'host' | 'port'>
  >;
  readonly auth: AuthPlan;
  /**
   * Every client identity of the run, once each: the top-level clients, then those only a workload
   * (or setup/teardown) names. A client in two workloads is one identity: one token, one quota.
   */
  readonly clients: readonly ClientPlan[];
  /** Every scenario of the profile (and a replay workload's, one per recorded method). */
  readonly scenarios: readonly ScenarioPlan[];
  /**
   * The units of load, played side by side on one clock, each with its own clients, scenarios and
   * load. A profile without `workloads` has one, `default`, made of its top-level phases or replay.
   */
  readonly workloads: readonly WorkloadPlan[];
  /** Every workload's phases in one list (a sample's phase index points here); each names its workload. */
  readonly phases: readonly PhasePlan[];
  /** Steps run once, by one client, before the load (after tokens); their saved values are `{{setup.NAME}}`. */
  readonly setup: SetupPlan | null;
  /** Steps run once after the load (also after an abort or Ctrl-C), with `{{setup.*}}` available. */
  readonly teardown: SetupPlan | null;
  readonly rateLimit: RateLimitContract;
  /** Parsed when the plan is built, so a typo fails before any load; evaluated on the result. */
  readonly thresholds: readonly ParsedThreshold[];
  readonly http: HttpPlan;
  /** Absolute path of the request-signing module (the profile's `sign`); null = requests are not signed. */
  readonly sign: string | null;
  /** Seed of the run's random choices (scenario picks, template picks). */
  readonly seed: number;
  /** W3C trace context of the requests (see driver/trace-context.ts). */
  readonly trace: TracePlan;
  /** How `rpcload report` renders the run: its trace link template (profile report.traceUrl); null = no links. */
  readonly report: { readonly traceUrl: string | null };
  /** Result checkpoint interval (ms). */
  readonly checkpointEveryMs: number;
  /** The `data` section: files whose rows feed `{{data.SET.COLUMN}}`, in the profile's order; empty = none. */
  readonly data: readonly DataSetPlan[];
  /**
   * Which share of a `unique` data set's rows this part of the run reads: row r (0-based) when
   * r % count === index. One process: { index: 0, count: 1 }; shards and workers split it further.
   */
  readonly dataPart: DataPart;
  /** The `capacity` section resolved (defaults when absent); only `rpcload capacity` reads it. */
  readonly capacity?: CapacityPlan;
}

/**
 * A unit of load: its clients send its scenarios (picked by weight) under its one load — phases of
 * a rate or a concurrency, N iterations per client, or a replay of recorded traffic — starting
 * `startAfterMs` into the run.
 */
export interface WorkloadPlan {
  readonly name: string;
  /** Its clients (indexes into the plan's clients), each with its weight here. */
  readonly clients: readonly WeightedIndex[];
  /** Its scenarios (indexes into the plan's scenarios), each with its weight here; a replay's are its recorded methods. */
  readonly scenarios: readonly WeightedIndex[];
  /** When it starts on the run's clock (ms). */
  readonly startAfterMs: number;
  /** Its phases, as indexes into the plan's phases, played back to back; a replay or iterations workload has one. */
  readonly phases: readonly number[];
  /** A replay workload's settings, before its recording is scanned (prepareReplay turns them into `replay`). */
  readonly replaySettings?: ReplaySettings;
  /** A replay workload's recording, scanned: its calls replace the scenarios' (see replay-plan.ts). */
  readonly replay?: ReplayPlan;
}

/** An index into one of the plan's lists, with a relative weight (> 0). */
export interface WeightedIndex {
  readonly index: number;
  readonly weight: number;
}

/** Setup or teardown: steps run once by one client, outside the load and its figures. */
export interface SetupPlan {
  /** The client that runs them (index into the plan's clients). */
  readonly client: number;
  readonly steps: readonly StepPlan[];
  /** How long all of them may take together (ms). */
  readonly timeoutMs: number;
  /** The names its steps save (setup: what `{{setup.NAME}}` may read). */
  readonly saves: readonly string[];
}

/** Whether and when requests carry a `traceparent`. */
export type TraceContextMode = 'always' | 'sampled' | 'off';

/** The resolved trace-context settings of a run (plain data: crosses worker and shard boundaries). */
export interface TracePlan {
  /** always: every request carries a traceparent; sampled: only sampled traces do; off: none. */
  readonly mode: TraceContextMode;
  /** Share of traces sent with the sampled flag (0..1), picked deterministically from the trace id. */
  readonly sampleRatio: number;
  /** A `tracestate` header value sent with every traceparent; null = none. */
  readonly tracestate: string | null;
  /** Send `baggage: rpcload.run=<run id>` with every request. */
  readonly baggageRunId: boolean;
  /** The run id the baggage names: null until the session that runs the plan sets it. */
  readonly runId: string | null;
  /** Seed of the id keys: the run's seed before any split into workers or shards. */
  readonly seed: number;
  /**
   * Which thread of the run draws ids: shard index (1-based, 0 = not sharded) × 65,536 + worker
   * index (1-based, 0 = no worker threads). Distinct threads of one run never share a stream.
   */
  readonly stream: number;
}

export type ReplicaAffinity = 'request' | 'client';

export interface AuthPlan {
  /** Token request method name, sent as POST {base}/api/{tokenMethod}. */
  readonly tokenMethod: string;
  /** client_secret_post, client_secret_basic or private_key_jwt. */
  readonly clientAuth: ClientAuthMethod;
  /** private_key_jwt: the algorithm asked for; null = each key's own. */
  readonly assertionAlg: AssertionAlg | null;
  readonly scope: string | null;
  /** Extra form fields sent with the token request. */
  readonly extraFields: Readonly<Record<string, string>>;
  /** Refresh a token this long before `expires_in` runs out (s). */
  readonly refreshMarginS: number;
}

export interface ClientPlan {
  readonly id: string;
  /** The client secret; for an embedded target without one, a random per-run secret. */
  readonly secret: string;
  /** Relative share of arrivals (default 1); a greedy client has a larger weight. */
  readonly weight: number;
  /** This client's own certificate (mTLS); null = the common one (`http.identity`), if any. */
  readonly tls: ClientTlsIdentity | null;
  /** private_key_jwt: the key its client assertions are signed with; null when it has none. */
  readonly assertionKey: AssertionKey | null;
  /** Handed to the sign module with each of its requests (its own, else the client secret). */
  readonly signingSecret: string;
}

export interface ScenarioPlan {
  readonly name: string;
  /** Relative share of iterations. */
  readonly weight: number;
  readonly steps: readonly StepPlan[];
}

export interface StepPlan {
  readonly method: string;
  readonly body: BodyTemplate;
  /** Walk `next` cursors with identical params, up to maxPages pages; null = single request. */
  readonly paginate: { readonly maxPages: number } | null;
  /** Pause after this step before the next one; fixed 0 = none. */
  readonly think: ThinkPlan;
  /** Values saved from the reply's `data` for later steps of the iteration (`{{vars.NAME}}`); empty = none. */
  readonly save: readonly SavePlan[];
  /** What the reply must be; null = any success (the default judgement). */
  readonly expect: ExpectPlan | null;
  /** After a failed expectation: end the iteration, or go on to the next step. */
  readonly onFail: 'stop' | 'continue';
  /** Labels its requests carry (thresholds select by them, the result groups by them); empty = none. */
  readonly tags: Readonly<Record<string, string>>;
}

/** A pause: fixed, uniform between two bounds, or exponential around a mean (all ms). */
export type ThinkPlan =
  | { readonly kind: 'fixed'; readonly ms: number }
  | { readonly kind: 'uniform'; readonly minMs: number; readonly maxMs: number }
  | { readonly kind: 'exponential'; readonly meanMs: number };

/** One value a step saves: its name, the path as written (`items[0].sku`), and that path's segments. */
export interface SavePlan {
  readonly name: string;
  readonly path: string;
  /** Property names and array indices, from the reply's `data` down. */
  readonly segments: readonly (string | number)[];
}

/** A step's expectation; every part given must hold. */
export interface ExpectPlan {
  /** The envelope's status; null = not checked. */
  readonly status: 'success' | 'error' | null;
  /** The error envelope's code; null = not checked. */
  readonly error: string | null;
  /** A subset the success envelope's `data` must contain (objects by key, arrays by position); null = not checked. */
  readonly data: Readonly<Record<string, unknown>> | null;
}

/** How a data set's rows are handed to iterations. */
export type DataOrder = 'sequential' | 'random' | 'unique';

/** One data set of the `data` section. */
export interface DataSetPlan {
  /** The set's name in templates: `{{data.NAME.COLUMN}}`. */
  readonly name: string;
  /** The file, resolved against the profile's directory. */
  readonly file: string;
  /** CSV with a header row, or JSON Lines (one object a line), from the file's extension. */
  readonly format: 'csv' | 'jsonl';
  readonly order: DataOrder;
  /** When the rows run out: start over, or end the run. */
  readonly onEnd: 'wrap' | 'stop';
  /** The columns templates name (checked against the file's header before the run). */
  readonly columns: readonly string[];
}

/** A part of a run's rows: row r belongs to it when r % count === index. */
export interface DataPart {
  readonly index: number;
  readonly count: number;
}

/**
 * A step's JSON body template as data: the `args` as written (already checked for template
 * syntax) and what its text depends on. The driver compiles it (see template.ts) where it runs,
 * so a plan can cross a worker or shard boundary as it is.
 */
export interface BodyTemplate {
  /** The template as written in the profile. */
  readonly source: Readonly<Record<string, unknown>>;
  /** 'static': same text always; 'client': depends only on the client; 'dynamic': random parts. */
  readonly variability: 'static' | 'client' | 'dynamic';
}

export interface TemplateContext {
  readonly clientId: string;
  readonly clientIndex: number;
  /** Iteration counter of the scenario (per run). */
  readonly iteration: number;
  /** Seeded random in [0, 1). */
  random(): number;
  /** Values saved from replies by earlier steps of the iteration (flows); absent or null when none. */
  readonly vars?: Readonly<Record<string, unknown>> | null;
  /** Values the run's setup saved (`{{setup.NAME}}`); absent or null when none. */
  readonly setup?: Readonly<Record<string, unknown>> | null;
  /** The iteration's row of each data set it reads, by set name; absent or null when none. */
  readonly data?: Readonly<Record<string, Readonly<Record<string, unknown>>>> | null;
  /** Told of a value the body names and the iteration lacks (e.g. "vars.orderId"): that body must not be sent. */
  missing?(what: string): void;
}

export interface PhasePlan {
  /** Unique across the plan: the phase's own name, prefixed `workload/` when the plan has several workloads. */
  readonly name: string;
  /** The workload it belongs to (index into the plan's workloads). */
  readonly workload: number;
  /** How long it lasts; for iterations, the most it may last; for a replay, its window at its speed (and loops). */
  readonly durationMs: number;
  /** A rate or a ramp (open model), virtual users or iterations per client (closed model), a replay; see phase-load.ts. */
  readonly load: PhaseLoad;
  /** Open model: arrivals evenly spaced along the rate, or a Poisson process at it (exponential gaps). */
  readonly arrivals: ArrivalProcess;
}

/**
 * Which HTTP client carries the load's API calls: rpcload's own (its HTTP/1.1 client, and sessions
 * of Node's http2 module on HTTP/2), or undici's Client. (`fast`, rpcload's former name, is read as
 * `rpcload` where a profile or flag names a client.)
 */
export type HttpClientName = 'rpcload' | 'undici';
export type ArrivalProcess = 'uniform' | 'poisson';

export interface HttpPlan {
  /** Connections per origin (undici Pool). */
  readonly connections: number;
  readonly pipelining: number;
  /** HTTP version asked for: 1.1, 2 (h2 required, an error before the run otherwise) or auto. */
  readonly version: HttpVersion;
  /** HTTP/2: requests in flight at once per connection. */
  readonly maxConcurrentStreams: number;
  readonly connectTimeoutMs: number;
  readonly headersTimeoutMs: number;
  readonly bodyTimeoutMs: number;
  /** A keep-alive connection idle this long is closed by rpcload (a server's Keep-Alive hint may lower it). */
  readonly idleTimeoutMs: number;
  /** Overall deadline of each request, token requests included (ms): a total, not an idle gap. */
  readonly requestTimeoutMs: number;
  /** Response bytes kept for parsing; the rest is read and discarded. */
  readonly bodyCapBytes: number;
  /** A longer response body is cut off (transport:body_too_large). */
  readonly maxResponseBytes: number;
  /** Open model: arrivals beyond this many requests in flight are skipped (and counted). */
  readonly maxInFlight: number;
  /** Extra CA (PEM) to trust, and whether to skip certificate verification. */
  readonly ca: string | null;
  readonly insecure: boolean;
  /** The client certificate (mTLS) of every client without one of its own; null = none. */
  readonly identity: ClientTlsIdentity | null;
  /** Open the load's connections before the clock starts (unused ones close after 2 s). */
  readonly preconnect: boolean;
  /** Warm the request code path against an in-process responder before the clock starts (see driver/warm-up.ts). */
  readonly warmUp: boolean;
  /** The load's HTTP client (token requests use Node's HTTP/1.1 client, or undici over HTTP/2). */
  readonly client: HttpClientName;
}
