/**
 * The verify run: preflight, the checks scheduled over the client IDs, and their
 * results gathered in one report.
 */
import { probeProtocol, requiredH2Problem, type DispatcherOptions } from '../api/dispatcher.ts';
import { IdentityDispatchers } from '../api/undici-agents.ts';
import { loadRequestSigner } from '../api/request-signer.ts';
import { RpcloadError } from '../errors.ts';
import type { CheckResult } from '../contract/result-schema.ts';
import { redactSecrets, redactText } from '../util/redact.ts';
import { registerPlanSecrets } from '../profile/plan-secrets.ts';
import type { CheckOutcome } from './check.ts';
import { ClientPool } from './client-pool.ts';
import { systemClock, type Clock } from './clock.ts';
import { executeCheck, SilentTarget, type CheckRun } from './check-execution.ts';
import { preflight } from './preflight.ts';
import { reconcileOutcomes } from './reconcile.ts';
import { selectChecks } from './registry.ts';
import { runScheduled, type ScheduledCheck } from './scheduler.ts';
import type { VerifyContext } from './check-context.ts';
import { TokenBook } from './tokens.ts';
import { CHECK_IDS, type CheckId } from './check-ids.ts';
import { skip } from './verdict.ts';
import type { CheckProgress } from '../contract/live-view.ts';
import type { VerifyConfig } from './config.ts';

export interface VerifyOptions {
  /** Called whenever a check changes state (waiting → running → pass/fail/skip). */
  readonly onProgress?: (record: CheckProgress) => void;
  /** Abort to stop: running checks end as `skip` (interrupted), the report is still returned. */
  readonly signal?: AbortSignal;
  readonly clock?: Clock;
  /** Each check's deadline (ms); default checkDeadlineMs(config). */
  readonly checkDeadlineMs?: number;
}

/**
 * How long one check may run before it is stopped and skipped: generous (two minutes, or a dozen
 * windows and a few request timeouts, plus the hooks' deadlines), but finite, so that no wait — a Retry-After of a day, a
 * server answering each request just inside its deadline — holds the suite for ever.
 */
export function checkDeadlineMs(config: VerifyConfig): number {
  // A hook check also waits for its two hooks, each within its own deadline.
  const hooksMs = config.hooks === null ? 0 : 2 * config.hooks.timeoutMs;
  return Math.max(120_000, 12 * config.windowMs + 4 * config.requestTimeoutMs) + hooksMs;
}

export interface VerifyReport {
  /** One result per selected check, in the order of CHECK_IDS; secrets redacted. */
  readonly checks: readonly CheckResult[];
  readonly startedAt: Date;
  readonly endedAt: Date;
  /** From the first check's start (after preflight) to the last one's end. */
  readonly durationMs: number;
  readonly aborted: boolean;
}

/** The run's shared machinery: the context every check gets, its stop, and what closes it. */
interface VerifyRun {
  readonly context: VerifyContext;
  readonly transport: DispatcherOptions;
  readonly abort: AbortController;
  close(): Promise<void>;
}

/**
 * Run the conformance checks against `config.target` (a configuration from resolveVerifyConfig:
 * at least one client and one method). Throws an RpcloadError (exit 2) when the target cannot be
 * reached or a client gets no token; everything after that is a verdict.
 */
export async function runVerify(config: VerifyConfig, options: VerifyOptions = {}): Promise<VerifyReport> {
  const clock = options.clock ?? systemClock;
  const run = await openVerifyRun(config, options, clock);
  const startedAt = new Date();
  try {
    if (!(await passPreflight(config, run))) return interruptedBeforeStart(config, startedAt);
    return await runChecks(config, run, options, startedAt);
  } finally {
    await run.close();
  }
}

/**
 * Everything the checks share, ready before the first request: the secrets known to the redactor,
 * the request signer, HTTP/2 when required, the connections per client identity (cut when the
 * run stops, so a check waiting on a response ends at once), tokens and the client pool.
 */
async function openVerifyRun(config: VerifyConfig, options: VerifyOptions, clock: Clock): Promise<VerifyRun> {
  // Known to the redactor before any reply could echo them (tokens register as they are issued).
  registerPlanSecrets({ clients: config.clients, http: { identity: config.identity } });
  const signer = config.sign === null ? null : await loadRequestSigner(config.sign);
  const transport: DispatcherOptions = {
    connections: null,
    ca: config.ca,
    insecure: config.insecure,
    connectTimeoutMs: config.requestTimeoutMs,
    identity: config.identity,
    httpVersion: config.httpVersion,
  };
  await requireHttpVersion(config, transport);
  const abort = new AbortController();
  const stop = (): void => abort.abort(options.signal?.reason);
  const dispatchers = new IdentityDispatchers(
    transport,
    new Map(config.clients.flatMap((c) => (c.tls === null ? [] : [[c.id, c.tls] as const]))),
  );
  abort.signal.addEventListener('abort', () => void dispatchers.destroy(), { once: true });
  // Stopped already (a signal during the start-up): every check is skipped as interrupted.
  if (options.signal?.aborted) stop();
  else options.signal?.addEventListener('abort', stop, { once: true });
  const tokens = new TokenBook(config, dispatchers, clock, abort.signal);
  const pool = new ClientPool(
    config.clients.map((c) => c.id),
    config.limit,
    config.windowMs,
    clock,
  );
  return {
    context: { config, dispatchers, signer, clock, tokens, pool, signal: abort.signal },
    transport,
    abort,
    close: async () => {
      options.signal?.removeEventListener('abort', stop);
      await dispatchers.close();
    },
  };
}

/** The start-up probe; false when the run was stopped during it (an interruption, not an unreachable target). */
async function passPreflight(config: VerifyConfig, run: VerifyRun): Promise<boolean> {
  try {
    await preflight(config, run.context.tokens, run.transport, run.context.dispatchers.for(undefined));
    return true;
  } catch (err) {
    if (!run.abort.signal.aborted) throw err;
    return false;
  }
}

/** A stop during the start-up: every selected check skipped as interrupted (exit 130, result written). */
function interruptedBeforeStart(config: VerifyConfig, startedAt: Date): VerifyReport {
  const checks = selectChecks(config.only).map((d) =>
    toResult(d.id, skip('interrupted', 'interrupted before it started'), undefined, undefined),
  );
  return { checks, startedAt, endedAt: new Date(), durationMs: 0, aborted: true };
}

/** The selected checks: those that apply, to be scheduled, and those that do not, already skipped. */
function planChecks(config: VerifyConfig): { scheduled: ScheduledCheck[]; notApplicable: Map<CheckId, CheckOutcome> } {
  const scheduled: ScheduledCheck[] = [];
  const notApplicable = new Map<CheckId, CheckOutcome>();
  for (const definition of selectChecks(config.only)) {
    const plan = definition.plan(config, config.clients.length);
    if (typeof plan === 'string') notApplicable.set(definition.id, skip('not_applicable', plan));
    else scheduled.push({ definition, plan });
  }
  return { scheduled, notApplicable };
}

/** Schedule the checks over the client IDs, run each to its outcome, reconcile them and report. */
async function runChecks(
  config: VerifyConfig,
  run: VerifyRun,
  options: VerifyOptions,
  startedAt: Date,
): Promise<VerifyReport> {
  const { clock, tokens, pool } = run.context;
  const originMs = clock.now();
  const progress = (id: CheckId, state: CheckProgress['state'], detail: string): void =>
    options.onProgress?.({ id, state, detail: redactText(detail, tokens.secrets()), atMs: clock.now() - originMs });
  const { scheduled, notApplicable: outcomes } = planChecks(config);
  for (const id of CHECK_IDS) {
    const outcome = outcomes.get(id);
    if (outcome) progress(id, 'skip', outcome.detail);
    else if (scheduled.some((s) => s.definition.id === id)) progress(id, 'waiting', '');
  }
  const durations = new Map<CheckId, number>();
  const clientsOf = new Map<CheckId, readonly string[]>();
  const checkRun: CheckRun = {
    context: run.context,
    stop: run.abort.signal,
    silent: new SilentTarget(),
    deadlineMs: options.checkDeadlineMs ?? checkDeadlineMs(config),
    onDuration: (id, ms) => durations.set(id, ms),
  };
  const ran = await runScheduled(scheduled, {
    pool,
    clock,
    signal: run.abort.signal,
    onStart: (id, clientIds) => {
      clientsOf.set(id, clientIds);
      progress(id, 'running', clientIds.length > 0 ? `on ${clientIds.join(', ')}` : '');
    },
    onSettled: (id, outcome) => progress(id, outcome.verdict, outcome.detail),
    execute: (check, clientIds) => executeCheck(checkRun, check, clientIds),
  });
  for (const [id, outcome] of ran) outcomes.set(id, outcome);
  for (const [id, outcome] of reconcileOutcomes(outcomes)) {
    outcomes.set(id, outcome);
    progress(id, outcome.verdict, outcome.detail);
  }
  const checks = CHECK_IDS.filter((id) => outcomes.has(id)).map((id) =>
    toResult(id, outcomes.get(id)!, durations.get(id), clientsOf.get(id)),
  );
  return {
    checks: redactSecrets(checks, tokens.secrets()),
    startedAt,
    endedAt: new Date(),
    durationMs: clock.now() - originMs,
    aborted: run.abort.signal.aborted,
  };
}

/** HTTP/2 required (`--http2`, http.version "2"): an https target that negotiates h2, or one clear line before any check. */
async function requireHttpVersion(config: VerifyConfig, transport: DispatcherOptions): Promise<void> {
  if (config.httpVersion !== '2') return;
  const target = new URL(config.target);
  if (target.protocol !== 'https:')
    throw new RpcloadError(
      'bad_flag',
      `--http2: HTTP/2 is negotiated with TLS ALPN, so it needs an https:// target, found ${config.target}`,
    );
  const problem = requiredH2Problem(config.target, '2', await probeProtocol(target, transport));
  if (problem !== null) throw new RpcloadError('http2_refused', problem);
}

function toResult(
  id: CheckId,
  outcome: CheckOutcome,
  durationMs: number | undefined,
  clientIds: readonly string[] | undefined,
): CheckResult {
  return {
    id,
    verdict: outcome.verdict,
    ...(outcome.verdict === 'skip' ? { skipClass: outcome.skipClass ?? 'inconclusive' } : {}),
    detail: outcome.detail,
    evidence: clientIds?.length ? { clients: clientIds, ...outcome.evidence } : { ...outcome.evidence },
    ...(durationMs === undefined ? {} : { durationMs: Math.round(durationMs * 1000) / 1000 }),
    ...(outcome.notes?.length ? { notes: [...outcome.notes] } : {}),
  };
}
