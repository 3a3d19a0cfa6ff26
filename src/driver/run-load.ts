/**
 * One load run from a plan: fetch every client's token, start the clock, play the phases back to
 * back on that clock, then let in-flight requests finish (a short grace when aborted). All data
 * goes to the recorder; this returns only how the run ended.
 */
import { Pool } from 'undici';
import { connectOptions, createDispatcher } from '../api/dispatcher.ts';
import { RpcloadError } from '../errors.ts';
import type { Recorder } from '../metrics/recorder.ts';
import type { Plan } from '../profile/plan.ts';
import { createRandom } from '../util/random.ts';
import { ClientIdentity } from './client-identity.ts';
import { runClosedPhase } from './closed-loop.ts';
import { compilePlan } from './compiled-plan.ts';
import { LoadEngine } from './engine.ts';
import { runOpenPhase, type PhaseRun } from './open-loop.ts';
import type { RunClock } from './run-clock.ts';
import { TokenManager } from './token-manager.ts';
import { createWarmConnector } from './warm-connector.ts';

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
}

export interface LoadRunOutcome {
  readonly status: 'completed' | 'aborted';
  /** Clients that obtained a token before the load started. */
  readonly clientsWithToken: number;
}

const DEFAULT_GRACE_MS = 2000;
const MAX_DRAIN_MS = 10_000;

function sleepUntil(clock: RunClock, atMs: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve(); // an 'abort' listener added now would never fire
  return new Promise((resolve) => {
    const timer = setTimeout(done, Math.max(0, atMs - clock.now()));
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

function within(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]).finally(() => clearTimeout(timer));
}

export async function runLoad(options: LoadRunOptions): Promise<LoadRunOutcome> {
  const { plan, recorder, clock, signal } = options;
  const target = new URL(options.baseUrl);
  const trust = { ca: plan.http.ca, insecure: plan.http.insecure, connectTimeoutMs: plan.http.connectTimeoutMs };
  // The hot path: undici's dispatch API on one keep-alive Pool for the target's origin, whose
  // connections may be opened before the clock starts (see warm-connector.ts).
  const connector = createWarmConnector(target, connectOptions(trust));
  const pool = new Pool(target.origin, {
    connections: plan.http.connections,
    pipelining: plan.http.pipelining,
    headersTimeout: plan.http.headersTimeoutMs,
    bodyTimeout: plan.http.bodyTimeoutMs,
    connect: connector.connect,
  });
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
    timeoutMs: plan.http.headersTimeoutMs,
  });
  try {
    const fetched = await tokens.fetchAll(clients);
    if (fetched.ok === 0 && !signal.aborted) {
      throw new RpcloadError(
        'auth_failed',
        `no client could obtain a token from ${options.baseUrl}: ${fetched.firstFailure ?? 'unknown error'}`,
      );
    }
    if (plan.http.preconnect && !signal.aborted) await connector.warm(plan.http.connections);
    if (options.startClock === undefined) clock.start();
    else await options.startClock();
    engine = new LoadEngine({
      compiled: compilePlan(plan, target.pathname.replace(/\/+$/, '')),
      pool,
      recorder,
      clients,
      tokens,
      rateLimit: plan.rateLimit,
      bodyCapBytes: plan.http.bodyCapBytes,
      maxInFlight: plan.http.maxInFlight,
      now: clock.now,
      random: createRandom(plan.seed),
    });
    let phaseStartMs = 0;
    for (const [index, phase] of plan.phases.entries()) {
      if (signal.aborted) break;
      const load = phase.load;
      const run: PhaseRun =
        load.kind === 'rate'
          ? runOpenPhase(engine, index, load, phase.durationMs, phaseStartMs, clock.now)
          : runClosedPhase(engine, index, load.vus, phaseStartMs + phase.durationMs, clock.now);
      const stopPhase = (): void => run.stop();
      signal.addEventListener('abort', stopPhase, { once: true });
      await run.done;
      signal.removeEventListener('abort', stopPhase);
      phaseStartMs += phase.durationMs;
    }
    // An open phase has released its last arrival before its end: the run lasts its full length.
    await sleepUntil(clock, phaseStartMs, signal);
    const aborted = signal.aborted;
    await within(
      engine.stop(),
      aborted ? (options.graceMs ?? DEFAULT_GRACE_MS) : Math.min(MAX_DRAIN_MS, plan.http.headersTimeoutMs + plan.http.bodyTimeoutMs),
    );
    return { status: aborted ? 'aborted' : 'completed', clientsWithToken: fetched.ok };
  } finally {
    tokens.stop(clients);
    connector.dispose();
    // Destroying fails whatever is still in flight; the engine counts those as cancelled.
    engine?.cancelInFlight();
    await Promise.all([pool.destroy(), tokenDispatcher.destroy()]);
  }
}
