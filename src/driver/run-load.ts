/**
 * One load run from a plan: load the sign module, learn which protocol the target speaks (when
 * HTTP/2 is asked for), fetch every client's token, fill the read-ahead of data files and of a
 * replay's recording (one per phase, each bounded), start the clock, play the phases back to back
 * on that clock (each ends at its duration), then let in-flight requests finish for a bounded
 * drain (a shorter grace when aborted). Requests still unanswered then are recorded as
 * transport:unanswered. All data goes to the recorder; this returns only how the run ended.
 */
import type { Socket } from 'node:net';
import {
  connectOptions,
  createDispatcher,
  probeProtocol,
  requiredH2Problem,
  socketProtocol,
  type DispatcherOptions,
} from '../api/dispatcher.ts';
import { loadRequestSigner } from '../api/request-signer.ts';
import { clientCertificateProblem } from '../api/tls-diagnosis.ts';
import { RpcloadError } from '../errors.ts';
import type { Recorder } from '../metrics/recorder.ts';
import type { PhasePlan, Plan } from '../profile/plan.ts';
import { registerPlanSecrets } from '../profile/plan-secrets.ts';
import { createRandom } from '../util/random.ts';
import { safeTimeout } from '../util/timers.ts';
import { ClientIdentity } from './client-identity.ts';
import { runClosedPhase } from './closed-loop.ts';
import { compilePlan } from './compiled-plan.ts';
import { connectionLanes } from './connection-lanes.ts';
import { ConnectionSet } from './connection-set.ts';
import { DataFeeds } from './data-feed.ts';
import { LoadEngine } from './engine.ts';
import { ReplicaRouter } from './replica-router.ts';
import { runOpenPhase, type PhaseRun } from './open-loop.ts';
import { createPacer, type Pacer } from './pacer.ts';
import { ReplayFeed } from './replay-feed.ts';
import { runReplayPhase } from './replay-loop.ts';
import type { RunClock } from './run-clock.ts';
import { TokenManager } from './token-manager.ts';
import { staticTraceHeaders, tokenTraceHeaders, TraceIds, USER_AGENT } from './trace-context.ts';
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

/** Mixed into the run's seed for a Poisson phase's gaps (plus the phase's index). */
const PACER_SEED_MIX = 0x9e37_79b9;
/** Mixed into the run's seed for random data rows, so they draw from a stream of their own. */
const DATA_SEED_MIX = 0x5eed_da7a;

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

/** The phases on the clock; a Poisson phase draws its gaps from the seed and its index (its own stream). */
function scheduleOf(phases: readonly PhasePlan[], seed: number): ScheduledPhase[] {
  let startMs = 0;
  return phases.map((phase, index) => {
    const scheduled = {
      phase,
      startMs,
      endMs: startMs + phase.durationMs,
      pacer:
        phase.load.kind === 'rate'
          ? createPacer(phase.load, phase.durationMs, phase.arrivals, createRandom(seed ^ (PACER_SEED_MIX + index)))
          : null,
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

/**
 * Whether the load's connections carry HTTP/2: never for http.version 1.1; otherwise what one
 * connection opened now negotiates (ALPN). HTTP/2 required but refused is a one-line error before
 * the run; an unreachable target is left to the token requests to report.
 */
async function negotiatesH2(plan: Plan, target: URL, transport: DispatcherOptions): Promise<boolean> {
  if (plan.http.version === '1.1' || target.protocol !== 'https:') return false;
  const probe = await probeProtocol(target, transport);
  const problem = requiredH2Problem(target.origin, plan.http.version, probe);
  if (problem !== null) throw new RpcloadError('http2_refused', problem);
  return 'protocol' in probe && probe.protocol === 'h2';
}

export async function runLoad(options: LoadRunOptions): Promise<LoadRunOutcome> {
  const { plan, recorder, clock, signal } = options;
  const target = new URL(options.baseUrl);
  // Keys, passphrases and signing secrets: known to this thread's redactor before any reply could echo them.
  registerPlanSecrets(plan);
  const signer = plan.sign === null ? null : await loadRequestSigner(plan.sign);
  const layout = connectionLanes(plan.clients, plan.http.connections, plan.http.identity);
  const transport: DispatcherOptions = {
    ca: plan.http.ca,
    insecure: plan.http.insecure,
    connectTimeoutMs: plan.http.connectTimeoutMs,
    identity: layout.lanes[0]?.identity ?? null,
    httpVersion: plan.http.version,
  };
  // The replicas are the same API as the target: what the target negotiates, they do.
  const h2 = await negotiatesH2(plan, target, transport);
  const laneTransport = (identity: DispatcherOptions['identity']): DispatcherOptions => ({
    ...transport,
    identity,
    httpVersion: h2 ? '2' : '1.1',
  });
  // The hot path: keep-alive connections to each route's origin — the target, or each replica the
  // load is spread over (see replica-router.ts) — one client each (rpcload's own HTTP/1.1 client
  // or undici's, see connection-set.ts), which may be opened before the clock starts (see
  // warm-connector.ts); on each route one lane of them per TLS identity (see connection-lanes.ts).
  const routes = (plan.replicas.length > 0 ? plan.replicas : [options.baseUrl]).map((url) => new URL(url));
  const countConnection = (socket: Socket): void => recorder.recordConnection(socketProtocol(socket));
  const connectors = routes.map((route) =>
    layout.lanes.map((lane) => createWarmConnector(route, connectOptions(laneTransport(lane.identity)), undefined, countConnection)),
  );
  const connections = new ReplicaRouter(
    routes.map(
      (route, r) =>
        new ConnectionSet(route.origin, {
          lanes: layout.lanes.map((lane, l) => ({ connections: lane.connections, connect: connectors[r]![l]!.connect })),
          slots: h2 ? plan.http.maxConcurrentStreams : plan.http.pipelining,
          allowH2: h2,
          headersTimeoutMs: plan.http.headersTimeoutMs,
          bodyTimeoutMs: plan.http.bodyTimeoutMs,
          idleTimeoutMs: plan.http.idleTimeoutMs,
          client: plan.http.client,
        }),
    ),
    plan.replicaAffinity,
  );
  // Token requests present the same certificate as their client's API calls.
  const tokenDispatchers = layout.lanes.map((lane) =>
    createDispatcher({
      ...laneTransport(lane.identity),
      connections: 8,
      headersTimeoutMs: plan.http.headersTimeoutMs,
      bodyTimeoutMs: plan.http.bodyTimeoutMs,
    }),
  );
  const clients = plan.clients.map(
    (c, i) => new ClientIdentity(i, c.id, c.secret, c.weight, layout.laneOf[i], c.signingSecret, c.assertionKey),
  );
  const traceIds = new TraceIds(plan.trace);
  const staticHeaders = staticTraceHeaders(plan.trace, USER_AGENT);
  let engine: LoadEngine | undefined;
  const tokens = new TokenManager({
    dispatchers: tokenDispatchers,
    baseUrl: options.baseUrl,
    auth: plan.auth,
    recorder,
    now: clock.now,
    timeoutMs: plan.http.requestTimeoutMs,
    traceHeaders: () => tokenTraceHeaders(plan.trace, traceIds),
  });
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  // A data set with onEnd stop that runs out ends the load early, as completed (see data-feed.ts).
  const dataEnd = new AbortController();
  const stopping = AbortSignal.any([signal, dataEnd.signal]);
  const data =
    plan.data.length === 0
      ? null
      : new DataFeeds(plan.data, plan.dataPart, createRandom(plan.seed ^ DATA_SEED_MIX), (text) => recorder.notice(text));
  // A replay's phases each read the recording ahead from now on, so their first calls are in memory when due.
  const replayFeeds = (plan.replay === undefined ? [] : plan.phases).map(
    (phase) =>
      new ReplayFeed({
        replay: plan.replay!,
        clients: plan.clients,
        tokenMethod: plan.auth.tokenMethod,
        durationMs: phase.durationMs,
        notice: (text) => recorder.notice(text),
        // Every part reads the whole recording: one counts the calls a changed file lost.
        ...(plan.dataPart.index === 0 ? { skip: recorder.recordSkipped.bind(recorder) } : {}),
      }),
  );
  try {
    const fetched = await tokens.fetchAll(clients, signal);
    if (fetched.ok === 0 && !signal.aborted) {
      // An mTLS server turning the connection away shows only as a reset to HTTP: say which it is.
      const certificate = await clientCertificateProblem(
        target,
        laneTransport(layout.lanes[layout.laneOf[0] ?? 0]?.identity ?? null),
        plan.http.connectTimeoutMs,
      );
      if (certificate !== null)
        throw new RpcloadError('auth_failed', `no client could obtain a token from ${options.baseUrl}: ${certificate}`);
      throw new RpcloadError(
        'auth_failed',
        `no client could obtain a token from ${options.baseUrl}: ${fetched.firstFailure ?? 'unknown error'}`,
      );
    }
    const basePath = target.pathname.replace(/\/+$/, '');
    // The code path first, then the connections: the warm-up's own sockets are closed by then.
    await warmUpOnce(plan, basePath, signal);
    if (plan.http.preconnect && !signal.aborted)
      await untilAborted(
        Promise.all(connectors.flatMap((lanes) => lanes.map((connector, l) => connector.warm(layout.lanes[l]!.connections)))),
        signal,
      );
    if (data !== null) await untilAborted(data.ready(), signal);
    await untilAborted(Promise.all(replayFeeds.map((feed) => feed.ready)), signal);
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
      signer,
      data,
      onDataExhausted: (set) => {
        if (dataEnd.signal.aborted) return;
        // (A wrapping set runs out only when this part of the run has no row of it: more workers or shards than rows.)
        const why =
          plan.data.find((d) => d.name === set)?.onEnd === 'stop'
            ? 'ran out of rows (onEnd: stop)'
            : 'has no rows for this part of the run';
        recorder.notice(`data set "${set}" ${why}: the load ended after ${(clock.now() / 1000).toFixed(1)} s, before its phases' end`);
        dataEnd.abort();
      },
      traceMode: plan.trace.mode,
      traceIds,
      staticHeaders,
    });
    const schedule = scheduleOf(plan.phases, plan.seed);
    const running = engine;
    options.onStart?.({
      get inFlight() {
        return running.inFlight;
      },
      offeredRatePerS: (nowMs) => offeredRatePerS(schedule, nowMs),
    });
    for (const [index, { phase, startMs, pacer }] of schedule.entries()) {
      if (stopping.aborted) break;
      const feed = replayFeeds[index];
      const run: PhaseRun =
        feed !== undefined
          ? runReplayPhase(engine, { feed, phaseIndex: index, phaseStartMs: startMs, durationMs: phase.durationMs, now: clock.now })
          : phase.load.kind === 'rate'
            ? runOpenPhase(engine, index, pacer!, phase.durationMs, startMs, clock.now)
            : runClosedPhase(engine, index, phase.load.vus, startMs + phase.durationMs, clock.now);
      const stopPhase = (): void => run.stop();
      stopping.addEventListener('abort', stopPhase, { once: true });
      await run.done;
      stopping.removeEventListener('abort', stopPhase);
    }
    // An open phase has released its last arrival before its end: the run lasts its full length.
    await untilClockOrAbort(clock, schedule.at(-1)?.endMs ?? 0, stopping);
    await within(engine.stop(), signal.aborted ? graceMs : Math.min(MAX_DRAIN_MS, plan.http.requestTimeoutMs), signal, graceMs);
    return { status: signal.aborted ? 'aborted' : 'completed', clientsWithToken: fetched.ok };
  } finally {
    data?.close();
    for (const feed of replayFeeds) feed.close();
    tokens.stop(clients);
    for (const connector of connectors.flat()) connector.dispose();
    // What is still in flight was sent and never answered; closing the connections then cancels it.
    engine?.abandonInFlight();
    await Promise.all([connections.destroy(), ...tokenDispatchers.map((dispatcher) => dispatcher.destroy())]);
  }
}
