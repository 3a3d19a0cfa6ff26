/**
 * One load run from a plan, in named steps: open the transport (the sign module, the protocol the
 * target speaks, the connections of each route and lane), fetch every client's token, warm up,
 * fill the read-ahead of data files and of each replay workload's recording (each bounded), start
 * the clock, play every workload side by side on that clock (each its phases back to back from its
 * own start), then let in-flight requests finish for a bounded drain (a shorter grace when
 * aborted). Requests still unanswered then are recorded as transport:unanswered. All data goes to
 * the recorder; this returns only how the run ended.
 */
import type { HttpDebug } from './http-debug.ts';
import type { Socket } from 'node:net';
import {
  connectOptions,
  probeProtocol,
  requiredH2Problem,
  socketProtocol,
  type DispatcherOptions,
} from '../api/dispatcher.ts';
import type { ApiTransport } from '../api/http-call.ts';
import { NodeHttpTransport } from '../api/node-transport.ts';
import { loadRequestSigner } from '../api/request-signer.ts';
import { clientCertificateProblem } from '../api/tls-diagnosis.ts';
import { RpcloadError } from '../errors.ts';
import type { Recorder } from '../metrics/recorder.ts';
import type { Plan } from '../profile/plan.ts';
import { registerPlanSecrets } from '../profile/plan-secrets.ts';
import { createRandom } from '../util/random.ts';
import { safeTimeout } from '../util/timers.ts';
import { ClientIdentity } from './client-identity.ts';
import { compilePlan } from './compiled-plan.ts';
import { connectionLanes } from './connection-lanes.ts';
import { ConnectionSet, connectionClient } from './connection-set.ts';
import { DataFeeds } from './data-feed.ts';
import { LoadEngine } from './engine.ts';
import { ReplicaRouter } from './replica-router.ts';
import { ReplayFeed } from './replay-feed.ts';
import type { RunClock } from './run-clock.ts';
import { TokenManager } from './token-manager.ts';
import { staticTraceHeaders, tokenTraceHeaders, TraceIds, USER_AGENT } from './trace-context.ts';
import { createWarmConnector } from './warm-connector.ts';
import { warmUpOnce } from './warm-up.ts';
import { runWorkload, scheduleOf, type WorkloadRun } from './workload-run.ts';

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
  /** The values the run's setup saved (`{{setup.NAME}}`), known before the load starts; null = none. */
  readonly setupValues?: Readonly<Record<string, unknown>> | null;
  /** Told of each iteration that walked all its steps, with the values its steps saved (setup/teardown keep them). */
  readonly onIterationDone?: (vars: Readonly<Record<string, unknown>> | null) => void;
  /** `--http-debug`: prints the load's first exchanges; null or absent = off. */
  readonly httpDebug?: HttpDebug | null;
}

/** What the live metrics read of a running load, when scraped (never per request). */
export interface LoadGauges {
  /** Requests sent and not yet finished. */
  readonly inFlight: number;
  /**
   * Arrivals per second the schedules ask for at `nowMs` (run clock): the sum of every workload's
   * (offeredByWorkload); 0 when only closed-model phases play, and after the last phase.
   */
  offeredRatePerS(nowMs: number): number;
  /** The same per workload, in the plan's order: its playing phase's pacer, or its recording at its speed over the last second. */
  offeredByWorkload(nowMs: number): number[];
  /** Calls each replay workload has released so far (0 for the other kinds), in the plan's order. */
  releasedByWorkload(): number[];
}

export interface LoadRunOutcome {
  readonly status: 'completed' | 'aborted';
  /** Clients that obtained a token before the load started. */
  readonly clientsWithToken: number;
}

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

/** `promise`, or nothing once `signal` aborts (a stop during start-up must not wait for connect timeouts). */
function untilAborted(promise: Promise<unknown>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  let onAbort = (): void => undefined;
  const aborted = new Promise<void>((resolve) => {
    onAbort = resolve;
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([promise.then(() => undefined), aborted]).finally(() =>
    signal.removeEventListener('abort', onAbort),
  );
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

/** The load's connections, token dispatchers and client identities, opened before the clock starts. */
interface Transport {
  readonly target: URL;
  readonly routes: readonly URL[];
  readonly connectors: ReturnType<typeof createWarmConnector>[][];
  readonly connections: ReplicaRouter;
  /** By lane: Node's HTTP/1.1 client, or undici's where the target speaks HTTP/2 (see tokenTransport). */
  readonly tokenDispatchers: TokenTransport[];
  readonly layout: ReturnType<typeof connectionLanes>;
  readonly laneTransport: (identity: DispatcherOptions['identity']) => DispatcherOptions;
  readonly clients: ClientIdentity[];
}

/**
 * The hot path's transport: keep-alive connections to each route's origin — the target, or each
 * replica the load is spread over (see replica-router.ts) — one client each (rpcload's own
 * HTTP/1.1 client or undici's, see connection-set.ts), which may be opened before the clock
 * starts (see warm-connector.ts); on each route one lane of them per TLS identity (see
 * connection-lanes.ts). Token requests present the same certificate as their client's API calls.
 */
async function openTransport(plan: Plan, baseUrl: string, recorder: Recorder): Promise<Transport> {
  const target = new URL(baseUrl);
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
  const routes = (plan.replicas.length > 0 ? plan.replicas : [baseUrl]).map((url) => new URL(url));
  const countConnection = (socket: Socket): void => recorder.recordConnection(socketProtocol(socket));
  const client = await connectionClient(plan.http.client);
  const rpcloadHttp1 = client === 'rpcload' && !h2;
  const connectors = routes.map((route) =>
    layout.lanes.map((lane) =>
      createWarmConnector(
        route,
        connectOptions(laneTransport(lane.identity)),
        undefined,
        countConnection,
        rpcloadHttp1,
      ),
    ),
  );
  const connections = new ReplicaRouter(
    routes.map(
      (route, r) =>
        new ConnectionSet(route.origin, {
          lanes: layout.lanes.map((lane, l) => ({
            connections: lane.connections,
            connect: connectors[r]![l]!.connect,
          })),
          slots: h2 ? plan.http.maxConcurrentStreams : plan.http.pipelining,
          allowH2: h2,
          headersTimeoutMs: plan.http.headersTimeoutMs,
          bodyTimeoutMs: plan.http.bodyTimeoutMs,
          idleTimeoutMs: plan.http.idleTimeoutMs,
          client,
        }),
    ),
    plan.replicaAffinity,
  );
  const tokenDispatchers = await Promise.all(
    layout.lanes.map((lane) =>
      tokenTransport(
        {
          ...laneTransport(lane.identity),
          connections: 8,
          headersTimeoutMs: plan.http.headersTimeoutMs,
          bodyTimeoutMs: plan.http.bodyTimeoutMs,
        },
        plan.http.idleTimeoutMs,
      ),
    ),
  );
  const clients = plan.clients.map(
    (c, i) => new ClientIdentity(i, c.id, c.secret, c.weight, layout.laneOf[i], c.signingSecret, c.assertionKey),
  );
  return { target, routes, connectors, connections, tokenDispatchers, layout, laneTransport, clients };
}

type TokenTransport = ApiTransport & { destroy(): Promise<void> };

/**
 * The token requests' client: Node's own HTTP/1.1 client, whose parser is native — undici's first
 * exchange costs ~0.3 CPU-s, mostly V8 compiling its WebAssembly parser, paid by every run though
 * its load goes over rpcload's own client — or undici's where the target negotiated HTTP/2 (Node's
 * http client speaks HTTP/1.1 only).
 */
async function tokenTransport(options: DispatcherOptions, idleTimeoutMs: number): Promise<TokenTransport> {
  if (options.httpVersion === '1.1') return new NodeHttpTransport(options, idleTimeoutMs);
  const { createDispatcher } = await import('../api/undici-agents.ts');
  return createDispatcher(options);
}

/** Every client's token; none at all is a one-line error (with the certificate's problem when mTLS is the cause). */
async function fetchTokens(
  tokens: TokenManager,
  t: Transport,
  plan: Plan,
  baseUrl: string,
  signal: AbortSignal,
): Promise<number> {
  const fetched = await tokens.fetchAll(t.clients, signal);
  if (fetched.ok === 0 && !signal.aborted) {
    // An mTLS server turning the connection away shows only as a reset to HTTP: say which it is.
    const certificate = await clientCertificateProblem(
      t.target,
      t.laneTransport(t.layout.lanes[t.layout.laneOf[0] ?? 0]?.identity ?? null),
      plan.http.connectTimeoutMs,
    );
    const why = certificate ?? fetched.firstFailure ?? 'unknown error';
    throw new RpcloadError('auth_failed', `no client could obtain a token from ${baseUrl}: ${why}`);
  }
  return fetched.ok;
}

/**
 * The read-ahead of each replay phase's recording, by phase index (started now: its first calls are
 * in memory when due). Every phase of a replay workload plays the window from its start (a capacity
 * step's warm-up and hold each do).
 */
function replayFeedsOf(plan: Plan, recorder: Recorder): Map<number, ReplayFeed> {
  const feeds = new Map<number, ReplayFeed>();
  for (const workload of plan.workloads) {
    if (workload.replay === undefined) continue;
    for (const index of workload.phases)
      feeds.set(
        index,
        new ReplayFeed({
          replay: workload.replay,
          clients: plan.clients,
          tokenMethod: plan.auth.tokenMethod,
          durationMs: plan.phases[index]!.durationMs,
          notice: (text) => recorder.notice(text),
          // Every part reads the whole recording: one counts the calls a changed file lost.
          ...(plan.dataPart.index === 0
            ? { skip: (reason: string, count: number) => recorder.recordSkipped(reason, count, index) }
            : {}),
        }),
      );
  }
  return feeds;
}

/**
 * Play every workload side by side on the clock, each from its own start; resolves when all have
 * ended (at their last phase's end, or sooner once stopped).
 */
async function playWorkloads(
  plan: Plan,
  engine: LoadEngine,
  feeds: ReadonlyMap<number, ReplayFeed>,
  clock: RunClock,
  stopping: AbortSignal,
  onStart: LoadRunOptions['onStart'],
): Promise<void> {
  const runs: WorkloadRun[] = plan.workloads.map((_, workload) =>
    runWorkload({ plan, workload, engine, now: clock.now, feeds }),
  );
  onStart?.({
    get inFlight() {
      return engine.inFlight;
    },
    offeredRatePerS: (nowMs) => runs.reduce((sum, run) => sum + run.offeredRatePerS(nowMs), 0),
    offeredByWorkload: (nowMs) => runs.map((run) => run.offeredRatePerS(nowMs)),
    releasedByWorkload: () => runs.map((run) => run.released()),
  });
  const stopAll = (): void => {
    for (const run of runs) run.stop();
  };
  if (stopping.aborted) stopAll();
  stopping.addEventListener('abort', stopAll, { once: true });
  await Promise.all(runs.map((run) => run.done));
  stopping.removeEventListener('abort', stopAll);
}

/**
 * When the last timed phase of any workload ends: a run lasts its full length even when it
 * released its last arrival early. A workload of iterations has no fixed length (its duration is
 * only the most it may last): it ends when its clients are done.
 */
function scheduledEndMs(plan: Plan): number {
  const ends = plan.workloads
    .map((_, w) => scheduleOf(plan, w).at(-1))
    .filter((last) => last !== undefined && last.phase.load.kind !== 'iterations');
  return Math.max(0, ...ends.map((last) => last!.endMs));
}

export async function runLoad(options: LoadRunOptions): Promise<LoadRunOutcome> {
  const { plan, recorder, clock, signal } = options;
  // Keys, passphrases and signing secrets: known to this thread's redactor before any reply could echo them.
  registerPlanSecrets(plan);
  const signer = plan.sign === null ? null : await loadRequestSigner(plan.sign);
  const t = await openTransport(plan, options.baseUrl, recorder);
  const traceIds = new TraceIds(plan.trace);
  let engine: LoadEngine | undefined;
  const tokens = new TokenManager({
    dispatchers: t.tokenDispatchers,
    baseUrl: options.baseUrl,
    auth: plan.auth,
    recorder,
    now: clock.now,
    timeoutMs: plan.http.requestTimeoutMs,
    traceHeaders: () => tokenTraceHeaders(plan.trace, traceIds),
    ...(options.httpDebug == null ? {} : { onExchange: options.httpDebug.apiExchange }),
  });
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  // A data set with onEnd stop that runs out ends the load early, as completed (see data-feed.ts).
  const dataEnd = new AbortController();
  const stopping = AbortSignal.any([signal, dataEnd.signal]);
  const data =
    plan.data.length === 0
      ? null
      : new DataFeeds(plan.data, plan.dataPart, createRandom(plan.seed ^ DATA_SEED_MIX), (text) =>
          recorder.notice(text),
        );
  const replayFeeds = replayFeedsOf(plan, recorder);
  try {
    const clientsWithToken = await fetchTokens(tokens, t, plan, options.baseUrl, signal);
    const basePath = t.target.pathname.replace(/\/+$/, '');
    // The code path first, then the connections: the warm-up's own sockets are closed by then.
    await warmUpOnce(plan, basePath, signal);
    if (plan.http.preconnect && !signal.aborted)
      await untilAborted(
        Promise.all(
          t.connectors.flatMap((lanes) => lanes.map((connector, l) => connector.warm(t.layout.lanes[l]!.connections))),
        ),
        signal,
      );
    if (data !== null) await untilAborted(data.ready(), signal);
    await untilAborted(Promise.all([...replayFeeds.values()].map((feed) => feed.ready)), signal);
    if (options.startClock === undefined) clock.start();
    else await options.startClock();
    engine = new LoadEngine({
      compiled: compilePlan(
        plan,
        t.routes.map((route) => route.pathname.replace(/\/+$/, '')),
      ),
      connections: t.connections,
      recorder,
      clients: t.clients,
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
        recorder.notice(
          `data set "${set}" ${why}: the load ended after ${(clock.now() / 1000).toFixed(1)} s, before its phases' end`,
        );
        dataEnd.abort();
      },
      traceMode: plan.trace.mode,
      traceIds,
      staticHeaders: staticTraceHeaders(plan.trace, USER_AGENT),
      setupValues: options.setupValues ?? null,
      ...(options.onIterationDone === undefined ? {} : { onIterationDone: options.onIterationDone }),
      httpDebug: options.httpDebug ?? null,
    });
    await playWorkloads(plan, engine, replayFeeds, clock, stopping, options.onStart);
    // A workload whose arrivals are all out has ended its phase early: the run lasts its full length.
    await untilClockOrAbort(clock, scheduledEndMs(plan), stopping);
    await within(
      engine.stop(),
      signal.aborted ? graceMs : Math.min(MAX_DRAIN_MS, plan.http.requestTimeoutMs),
      signal,
      graceMs,
    );
    return { status: signal.aborted ? 'aborted' : 'completed', clientsWithToken };
  } finally {
    data?.close();
    for (const feed of replayFeeds.values()) feed.close();
    tokens.stop(t.clients);
    for (const connector of t.connectors.flat()) connector.dispose();
    // What is still in flight was sent and never answered; closing the connections then cancels it.
    engine?.abandonInFlight();
    await Promise.all([t.connections.destroy(), ...t.tokenDispatchers.map((dispatcher) => dispatcher.destroy())]);
  }
}
