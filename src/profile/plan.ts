/**
 * The resolved, frozen form of a profile: nothing optional, every default applied, durations in
 * ms, templates checked, thresholds parsed. Plain, structured-cloneable data: the driver and its
 * worker threads consume it as it is; user-facing optionality lives in the profile schema.
 */
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
  /** Options for the embedded server (used only when target is null); its clients come from `clients`. */
  readonly embeddedServer: Readonly<Omit<ServerOptions, 'clients' | 'clientPattern' | 'host' | 'port'>>;
  readonly auth: AuthPlan;
  readonly clients: readonly ClientPlan[];
  readonly scenarios: readonly ScenarioPlan[];
  readonly phases: readonly PhasePlan[];
  readonly rateLimit: RateLimitContract;
  /** Parsed when the plan is built, so a typo fails before any load; evaluated on the result. */
  readonly thresholds: readonly ParsedThreshold[];
  readonly http: HttpPlan;
  /** Seed of the run's random choices (scenario picks, template picks). */
  readonly seed: number;
  /** Result checkpoint interval (ms). */
  readonly checkpointEveryMs: number;
  /** The `capacity` section resolved (defaults when absent); only `rpcload capacity` reads it. */
  readonly capacity?: CapacityPlan;
  /** The profile's `replay` section, before its recording is scanned (prepareReplay turns it into `replay`). */
  readonly replaySettings?: ReplaySettings;
  /** A replay of recorded traffic: the phases send its calls instead of the scenarios' (see replay-plan.ts). */
  readonly replay?: ReplayPlan;
}

export type ReplicaAffinity = 'request' | 'client';

export interface AuthPlan {
  /** Token request method name, sent as POST {base}/api/{tokenMethod}. */
  readonly tokenMethod: string;
  /** client_secret_post or client_secret_basic. */
  readonly clientAuth: 'post' | 'basic';
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
  /** Pause after this step before the next one (ms); 0 = none. */
  readonly thinkMs: number;
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
}

export interface PhasePlan {
  readonly name: string;
  readonly durationMs: number;
  /** Open model (a rate or a ramp) or closed model (virtual users); see phase-load.ts. */
  readonly load: PhaseLoad;
}

export interface HttpPlan {
  /** Connections per origin (undici Pool). */
  readonly connections: number;
  readonly pipelining: number;
  readonly connectTimeoutMs: number;
  readonly headersTimeoutMs: number;
  readonly bodyTimeoutMs: number;
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
  /** Open the load's connections before the clock starts (unused ones close after 2 s). */
  readonly preconnect: boolean;
  /** Warm the request code path against an in-process responder before the clock starts (see driver/warm-up.ts). */
  readonly warmUp: boolean;
}
