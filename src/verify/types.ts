import type { CheckVerdict } from '../contract/result-schema.ts';

/**
 * The verifier's vocabulary: the check ids (DESIGN.md's table, in its order), the resolved
 * configuration a run works from, the verdict every check ends in, and the progress record the
 * CLI's progress lines (and later the dashboard panel) consume.
 */
export const CHECK_IDS = [
  'envelope',
  'auth.missing_token',
  'auth.invalid_token',
  'ratelimit.threshold',
  'ratelimit.response',
  'ratelimit.retry_after_honoured',
  'ratelimit.per_client',
  'ratelimit.all_methods',
  'ratelimit.concurrent_burst',
  'payload.limit',
  'pagination',
  'tls',
] as const;
export type CheckId = (typeof CHECK_IDS)[number];

export function isCheckId(value: string): value is CheckId {
  return (CHECK_IDS as readonly string[]).includes(value);
}

/** The readings of "100 KB" the conventions allow when no payload limit is pinned. */
export const PAYLOAD_LIMIT_READINGS_BYTES = [100_000, 102_400] as const;

/** A client ID with its secret (the secret never leaves the token request). */
export interface VerifyClient {
  readonly id: string;
  readonly secret: string;
}

/** A paginated method and, optionally, the `data` field holding its page array. */
export interface PaginatedMethod {
  readonly method: string;
  /** null = the only array in `data`. */
  readonly field: string | null;
}

/** Everything a verify run needs, resolved from flags and/or a profile; nothing optional. */
export interface VerifyConfig {
  /** Base URL without a trailing slash. */
  readonly target: string;
  readonly tokenMethod: string;
  readonly clientAuth: 'post' | 'basic';
  readonly scope: string | null;
  readonly extraFields: Readonly<Record<string, string>>;
  readonly clients: readonly VerifyClient[];
  /** Methods to call; the first is the cheap probe method that bursts spend quota on. */
  readonly methods: readonly string[];
  readonly paginated: readonly PaginatedMethod[];
  /** The contract under test: `limit` requests per `windowMs`, per client ID. */
  readonly limit: number;
  readonly windowMs: number;
  /** Pinned payload limit in bytes; null = either reading of 100 KB passes. */
  readonly payloadLimitBytes: number | null;
  /** Checks to run; null = all. */
  readonly only: readonly CheckId[] | null;
  /** Extra CA (PEM text) to trust, and whether to skip certificate verification. */
  readonly ca: string | null;
  readonly insecure: boolean;
  /** Treat Retry-After slack over the 1 s rounding allowance as a failure. */
  readonly strictRetryAfter: boolean;
  /** Per-request headers and body timeout (ms). */
  readonly requestTimeoutMs: number;
}

/** How a check ended: the verdict, a one-line reason, the evidence behind it. */
export interface Verdict {
  readonly verdict: CheckVerdict;
  readonly detail: string;
  readonly evidence: Readonly<Record<string, unknown>>;
  /** Informational findings that do not change the verdict. */
  readonly notes?: readonly string[];
}

export type ProgressState = 'waiting' | 'running' | 'pass' | 'fail' | 'skip';

/** One progress event: a check changed state (`atMs` since the verify run started). */
export interface ProgressRecord {
  readonly id: CheckId;
  readonly state: ProgressState;
  readonly detail: string;
  readonly atMs: number;
}

export function pass(detail: string, evidence: Readonly<Record<string, unknown>>, notes?: readonly string[]): Verdict {
  return notes?.length ? { verdict: 'pass', detail, evidence, notes } : { verdict: 'pass', detail, evidence };
}

export function fail(detail: string, evidence: Readonly<Record<string, unknown>>, notes?: readonly string[]): Verdict {
  return notes?.length ? { verdict: 'fail', detail, evidence, notes } : { verdict: 'fail', detail, evidence };
}

export function skip(detail: string, evidence: Readonly<Record<string, unknown>> = {}, notes?: readonly string[]): Verdict {
  return notes?.length ? { verdict: 'skip', detail, evidence, notes } : { verdict: 'skip', detail, evidence };
}
