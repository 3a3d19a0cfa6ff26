/**
 * One load run from a plan: fetch every client's token, start the clock, play the phases back to
 * back on that clock (each ends at its duration), then let in-flight requests finish for a
 * bounded drain (a shorter grace when aborted). Requests still unanswered then are recorded as
 * transport:unanswered. All data goes to the recorder; this returns only how the run ended.
 */
import { connectOptions, createDispatcher } from '../api/dispatcher.ts';
import { RpcloadError } from '../errors.ts';
import type { Recorder } from '../metrics/recorder.ts';
import type { PhasePlan, Plan } from '../profile/plan.ts';
import { createRandom } from '../util/random.ts';
import { safeTimeout } from '../util/timers.ts';
import { ClientIdentity } from './client-identity.ts';
import { runClosedPhase } from './closed-loop.ts';
import { compilePlan } from './compiled-plan.ts';
import { ConnectionSet } from './connection-set.ts';
import { LoadEngine } from './engine.ts';
import { ReplicaRouter } from './replica-router.ts';
import { runOpenPhase, type PhaseRun } from './open-loop.ts';
import { createPacer, type Pacer } from './pacer.ts';
import { runReplayPhase } from './replay-loop.ts';
import type { RunClock } from './run-clock.ts';
import { TokenManager } from './token-manager.ts';
import { createWarmConnector } from './warm-connector.ts';
import { warmUpOnce } from './warm-up.ts';

export interface LoadRunOptions {
  readonly plan: Plan;
  /** The target's base URL (the plan's, or the embedded server's). */
  readonly baseUrl: string;
  readonly recorder: Recorder;
  readonly clock: RunClock;
  /** Aborting stops scheduling at once; in-flight requests get `graceMs` to finish. */
  readonly signal: AbortSignal;
  readonly graceMs?: number;
  /**
   * Starts the clock once every token is in; default `clock.start()`. A worker thread uses it to
   * report ready and wait for the run's shared origin.
   */
  readonly startClock?: () => Promise<void>;
  /** Told once the load has started (its clock too): the live metrics read these gauges when scraped. */
  readonly onStart?: (gauges: LoadGauges) => void;
}

/** What the live metrics read of a running load, when scraped (never per request). */
export interface LoadGauges {
  /** Requests sent and not yet finished. */
  readonly inFlight: number;
  /**
   * Arrivals per second the schedule asks for at `nowMs` (run clock): the rate of the pacer of
   * the phase playing then; 0 in a closed-model phase and after the last phase.
   */
  offeredRatePerS(nowMs: number): number;
}

export interface LoadRunOutcome {
  readonly status: 'completed' | 'aborted';
  /** Clients that obtained a token before the load started. */
  readonly clientsWithToken: number;
}

/** After a stop (Ctrl-C), requests in flight get this long before they are written off: the run ends within ~2 s. */
const DEFAULT_GRACE_MS = 1000;
/** After the last phase, requests in flight get at most this long (and at most their deadline) to finish. */
export const MAX_DRAIN_MS = 5000;

/** Resolves when the run clock reaches `atMs`, or at once when `signal` aborts. */
function untilClockOrAbort(clock: RunClock, atMs: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve(); // an 'abort' listener added now would never fire
  return new Promise((resolve) => {
    const timer = safeTimeout(done, atMs - clock.now());
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** A phase of the plan placed on the run's clock (phases play back to back). */
interface ScheduledPhase {
  readonly phase: PhasePlan;
  readonly startMs: number;
  readonly endMs: number;
  /** The pacer of an open-model phase (made for each); null for a closed-model one. */
  readonly pacer: Pacer | null;
}

function scheduleOf(phases: readonly PhasePlan[]): ScheduledPhase[] {
  let startMs = 0;
  return phases.map((phase) => {
    const scheduled = {
      phase,
      startMs,
      endMs: startMs + phase.durationMs,
      pacer: phase.load.kind === 'rate' ? createPacer(phase.load, phase.durationMs) : null,
    };
    startMs = scheduled.endMs;
    return scheduled;
  });
}

/** The offered rate at `nowMs`: the pacer of the phase playing then says it. */
function offeredRatePerS(schedule: readonly ScheduledPhase[], nowMs: number): number {
  const playing = schedule.find((scheduled) => nowMs < scheduled.endMs);
  return playing === undefined || playing.pacer === null ? 0 : playing.pacer.rateAt(Math.max(0, nowMs - playing.startMs));
}

/** `promise`, or nothing once `signal` aborts (a stop during start-up must not wait for connect timeouts). */
function untilAborted(promise: Promise<unknown>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  let onAbort = (): void => undefined;
  const aborted = new Promise<void>((resolve) => {
    onAbort = resolve;
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([promise.then(() => undefined), aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}

/**
 * Wait for `promise` at most `ms`; an abort during the wait (a Ctrl-C while draining) shortens
 * what is left to `graceMs`.
 */
function within(promise: Promise<void>, ms: number, signal: AbortSignal, graceMs: number): Promise<void> {
  const timers: NodeJS.Timeout[] = [];
  let onAbort = (): void => undefined;
  const timeout = new Promise<void>((resolve) => {
    timers.push(safeTimeout(resolve, ms));
    onAbort = () => timers.push(safeTimeout(resolve, graceMs));
    if (!signal.aborted) signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([promise, timeout]).finally(() => {
    for (const timer of timers) clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  });
}

export async function runLoad(options: LoadRunOptions): Promise<LoadRunOutcome> {
  const { plan, recorder, clock, signal } = options;
  const target = new URL(options.baseUrl);
  const trust = { ca: plan.http.ca, insecure: plan.http.insecure, connectTimeoutMs: plan.http.connectTimeoutMs };
  // The hot path: undici's dispatch API on keep-alive connections to each route's origin — the
  // target, or each replica the load is spread over (see replica-router.ts) — one undici Client
  // each (see connection-set.ts), which may be opened before the clock starts (see warm-connector.ts).
  const routes = (plan.replicas.length > 0 ? plan.replicas : [options.baseUrl]).map((url) => new URL(url));
  const connectors = routes.map((route) => createWarmConnector(route, connectOptions(trust)));
  const connections = new ReplicaRouter(
    routes.map(
      (route, i) =>
        new ConnectionSet(route.origin, {
          connections: plan.http.connections,
          pipelining: plan.http.pipelining,
          headersTimeoutMs: plan.http.headersTimeoutMs,
          bodyTimeoutMs: plan.http.bodyTimeoutMs,
          connect: connectors[i]!.connect,
        }),
    ),
    plan.replicaAffinity,
  );
  const tokenDispatcher = createDispatcher({
    ...trust,
    connections: 8,
    headersTimeoutMs: plan.http.headersTimeoutMs,
    bodyTimeoutMs: plan.http.bodyTimeoutMs,
  });
  const clients = plan.clients.map((c, i) => new ClientIdentity(i, c.id, c.secret, c.weight));
  let engine: LoadEngine | undefined;
  const tokens = new TokenManager({
    dispatcher: tokenDispatcher,
    baseUrl: options.baseUrl,
    auth: plan.auth,
    recorder,
    now: clock.now,
    timeoutMs: plan.http.requestTimeoutMs,
  });
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  try {
    const fetched = await tokens.fetchAll(clients, signal);
    if (fetched.ok === 0 && !signal.aborted) {
      throw new RpcloadError(
        'auth_failed',
        `no client could obtain a token from ${options.baseUrl}: ${fetched.firstFailure ?? 'unknown error'}`,
      );
    }
    const basePath = target.pathname.replace(/\/+$/, '');
    // The code path first, then the connections: the warm-up's own sockets are closed by then.
    await warmUpOnce(plan, basePath, signal);
    if (plan.http.preconnect && !signal.aborted)
      await untilAborted(Promise.all(connectors.map((connector) => connector.warm(plan.http.connections))), signal);
    if (options.startClock === undefined) clock.start();
    else await options.startClock();
    engine = new LoadEngine({
      compiled: compilePlan(
        plan,
        routes.map((route) => route.pathname.replace(/\/+$/, '')),
      ),
      connections,
      recorder,
      clients,
      tokens,
      rateLimit: plan.rateLimit,
      bodyCapBytes: plan.http.bodyCapBytes,
      maxBodyBytes: plan.http.maxResponseBytes,
      requestTimeoutMs: plan.http.requestTimeoutMs,
      maxInFlight: plan.http.maxInFlight,
      now: clock.now,
      random: createRandom(plan.seed),
    });
    const schedule = scheduleOf(plan.phases);
    const running = engine;
    options.onStart?.({
      get inFlight() {
        return running.inFlight;
      },
      offeredRatePerS: (nowMs) => offeredRatePerS(schedule, nowMs),
    });
    for (const [index, { phase, startMs, pacer }] of schedule.entries()) {
      if (signal.aborted) break;
      const run: PhaseRun =
        plan.replay !== undefined
          ? runReplayPhase(engine, {
              replay: plan.replay,
              clients: plan.clients,
              tokenMethod: plan.auth.tokenMethod,
              phaseIndex: index,
              phaseStartMs: startMs,
              durationMs: phase.durationMs,
              now: clock.now,
              notice: (text) => recorder.notice(text),
            })
          : phase.load.kind === 'rate'
            ? runOpenPhase(engine, index, pacer!, phase.durationMs, startMs, clock.now)
            : runClosedPhase(engine, index, phase.load.vus, startMs + phase.durationMs, clock.now);
      const stopPhase = (): void => run.stop();
      signal.addEventListener('abort', stopPhase, { once: true });
      await run.done;
      signal.removeEventListener('abort', stopPhase);
    }
    // An open phase has released its last arrival before its end: the run lasts its full length.
    await untilClockOrAbort(clock, schedule.at(-1)?.endMs ?? 0, signal);
    await within(engine.stop(), signal.aborted ? graceMs : Math.min(MAX_DRAIN_MS, plan.http.requestTimeoutMs), signal, graceMs);
    return { status: signal.aborted ? 'aborted' : 'completed', clientsWithToken: fetched.ok };
  } finally {
    tokens.stop(clients);
    for (const connector of connectors) connector.dispose();
    // What is still in flight was sent and never answered; closing the connections then cancels it.
    engine?.abandonInFlight();
    await Promise.all([connections.destroy(), tokenDispatcher.destroy()]);
  }
}
