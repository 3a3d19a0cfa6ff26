/**
 * Warms the load's code path before the run's clock starts, as connections and tokens already are.
 *
 * Why: until V8 has compiled them, undici's request writer and response parser, the engine, the
 * envelope classifier and the recorder run as interpreted, unoptimized code, several times slower
 * per request. An open-model run then starts behind its schedule and catches up over its first
 * second: measured at 10,000 arrivals/s, the first second's schedule lag p99 was 90–700 ms against
 * 1.5–20 ms later in the same runs, and the whole run's p99 was that first second's.
 *
 * How: the same code — a LoadEngine with its own recorder, clients and connections — runs the
 * plan's scenarios for a few hundred milliseconds, closed and open model as the plan uses them,
 * against a responder in this thread on 127.0.0.1 that answers every request with a success
 * envelope. Nothing reaches the target: the warm-up spends none of its rate-limit quota, none of
 * its tokens and leaves nothing in its logs; what was recorded is thrown away.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { buildConnector } from 'undici';
import { Recorder } from '../metrics/recorder.ts';
import { peakOf, rateLoad } from '../profile/phase-load.ts';
import type { Plan } from '../profile/plan.ts';
import { createRandom } from '../util/random.ts';
import { ClientIdentity } from './client-identity.ts';
import { runClosedPhase } from './closed-loop.ts';
import { compilePlan, planMethods } from './compiled-plan.ts';
import { ReplicaRouter } from './replica-router.ts';
import { ConnectionSet, connectionClient } from './connection-set.ts';
import { directReadConnector } from './connection-socket.ts';
import { LoadEngine } from './engine.ts';
import { runOpenPhase } from './open-loop.ts';
import type { PhaseRun } from './release-loop.ts';
import { createPacer } from './pacer.ts';
import { staticTraceHeaders, TraceIds, USER_AGENT } from './trace-context.ts';

/** Time spent warming at most, in all (split between the closed and the open model when the plan has both). */
export const WARM_UP_MS = 400;
/**
 * Requests answered after which the code is warm (split like the time): V8 has optimized the
 * request path's functions well before this, and on a fast machine the 400 ms would be ~8,000
 * requests of full-speed work paid by every run for nothing.
 */
export const WARM_UP_REQUESTS = 3_000;
/** At most this many clients, connections and virtual users take part: enough to warm every path. */
const MAX_WARM_CLIENTS = 16;
const MAX_WARM_CONNECTIONS = 16;
/** Arrival rates warmed in the open model are capped (the responder shares this thread). */
const MAX_WARM_RATE_PER_S = 10_000;
const MIN_WARM_RATE_PER_S = 2_000;

/** Below these a cold code path keeps up anyway (it is slower per request, not behind): no warm-up. */
const WARM_FROM_RATE_PER_S = 1_000;
const WARM_FROM_VUS = 8;

/** Does the plan load hard enough for a cold code path to fall behind or lose throughput? */
export function worthWarming(plan: Plan): boolean {
  return plan.phases.some((p) => peakOf(p.load) >= (p.load.kind === 'rate' ? WARM_FROM_RATE_PER_S : WARM_FROM_VUS));
}

const REPLY_BODY = '{"status":"success","data":{}}';
const REPLY = Buffer.from(
  `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(REPLY_BODY)}\r\nconnection: keep-alive\r\n\r\n${REPLY_BODY}`,
  'latin1',
);
const HEAD_END = Buffer.from('\r\n\r\n', 'latin1');
const CONTENT_LENGTH = /\r\ncontent-length:\s*(\d+)/i;

/** Answer each complete request on a socket with REPLY (keep-alive; request bodies skipped). */
function respond(socket: Socket, onAnswer: () => void): void {
  socket.setNoDelay(true);
  socket.on('error', () => socket.destroy());
  let pending: Buffer = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
      const headEnd = pending.indexOf(HEAD_END);
      if (headEnd < 0) return;
      const length = Number(CONTENT_LENGTH.exec(pending.subarray(0, headEnd).toString('latin1'))?.[1] ?? 0);
      const end = headEnd + HEAD_END.length + length;
      if (pending.length < end) return;
      pending = pending.subarray(end);
      socket.write(REPLY);
      onAnswer();
    }
  });
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

/** Set once a warm-up answered requests in this thread: V8 keeps the code optimized for later loads. */
let warmedInThisThread = false;

/**
 * Warm the code path once per thread: the first load of a thread (a run, a worker's share, the
 * first step of a capacity search) warms it; later loads in the same thread find it warm.
 * Resolves with the number of warm-up requests answered (0 when it did not run).
 */
export async function warmUpOnce(plan: Plan, basePath: string, signal: AbortSignal): Promise<number> {
  if (warmedInThisThread || !plan.http.warmUp || !worthWarming(plan) || signal.aborted) return 0;
  const answered = await warmUpHotPath(plan, basePath, signal);
  if (answered > 0) warmedInThisThread = true;
  return answered;
}

/**
 * What the warm-up plays: the plan's first clients, as one workload sending every scenario by its
 * own weight in one phase (the kinds of load it plays are taken from the plan's phases below).
 */
function warmUpPlan(plan: Plan): Plan {
  const clients = plan.clients.slice(0, MAX_WARM_CLIENTS);
  return {
    ...plan,
    clients,
    workloads: [
      {
        name: 'warm-up',
        clients: clients.map((c, index) => ({ index, weight: c.weight })),
        scenarios: plan.scenarios.map((s, index) => ({ index, weight: s.weight })),
        startAfterMs: 0,
        phases: [0],
      },
    ],
    phases: [
      {
        name: 'warm-up',
        workload: 0,
        durationMs: WARM_UP_MS,
        load: rateLoad(MIN_WARM_RATE_PER_S),
        arrivals: 'uniform',
      },
    ],
  };
}

/**
 * Run the plan's scenarios against an in-process responder for about WARM_UP_MS. Resolves with the
 * number of requests answered (0 when the warm-up could not run: it is an optimization, never a
 * reason for the run to fail). Stops early when `signal` aborts.
 */
export async function warmUpHotPath(
  plan: Plan,
  basePath: string,
  signal: AbortSignal,
  budgetMs = WARM_UP_MS,
): Promise<number> {
  if (signal.aborted || plan.phases.length === 0) return 0;
  const sockets = new Set<Socket>();
  let answered = 0;
  let enough = Infinity; // answers after which the run under way stops
  let current: PhaseRun | undefined;
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    respond(socket, () => {
      if (++answered >= enough) current?.stop();
    });
  });
  let connections: ConnectionSet | undefined;
  let engine: LoadEngine | undefined;
  try {
    const port = await listen(server);
    const warm = warmUpPlan(plan);
    const clientPlans = warm.clients;
    const clients = clientPlans.map((c, i) => new ClientIdentity(i, c.id, '', c.weight));
    for (const client of clients) client.setToken('warm-up');
    const connectionCount = Math.min(plan.http.connections, MAX_WARM_CONNECTIONS);
    const client = await connectionClient(plan.http.client);
    connections = new ConnectionSet(`http://127.0.0.1:${port}`, {
      // The run's kind of socket too: read directly by rpcload's HTTP/1.1 client (connection-socket.ts).
      lanes: [
        { connections: connectionCount, connect: client === 'rpcload' ? directReadConnector({}) : buildConnector({}) },
      ],
      slots: plan.http.pipelining,
      allowH2: false,
      headersTimeoutMs: plan.http.headersTimeoutMs,
      bodyTimeoutMs: plan.http.bodyTimeoutMs,
      idleTimeoutMs: plan.http.idleTimeoutMs,
      client, // the same client as the run's, so its code is what gets warm
    });
    const startedAt = performance.now();
    const now = (): number => performance.now() - startedAt;
    const recorder = new Recorder(
      { methods: planMethods(warm), phases: ['warm-up'], clients: clientPlans.map((c) => c.id) },
      { rateLimit: plan.rateLimit },
    );
    engine = new LoadEngine({
      compiled: compilePlan(warm, [basePath]),
      connections: new ReplicaRouter([connections], 'request'),
      recorder,
      clients,
      tokens: { onInvalidToken: () => undefined }, // the responder never answers 401
      rateLimit: plan.rateLimit,
      bodyCapBytes: plan.http.bodyCapBytes,
      maxBodyBytes: plan.http.maxResponseBytes,
      requestTimeoutMs: plan.http.requestTimeoutMs,
      maxInFlight: plan.http.maxInFlight,
      now,
      random: createRandom(plan.seed),
      traceMode: plan.trace.mode,
      traceIds: new TraceIds(plan.trace),
      staticHeaders: staticTraceHeaders(plan.trace, USER_AGENT),
    });
    const closed = plan.phases.find((p) => p.load.kind === 'concurrency');
    const open = plan.phases.find((p) => p.load.kind === 'rate');
    const slices = closed !== undefined && open !== undefined ? 2 : 1;
    const sliceMs = budgetMs / slices;
    const runs: (() => PhaseRun)[] = [];
    if (closed?.load.kind === 'concurrency') {
      const vus = Math.max(1, Math.min(closed.load.vus, connectionCount));
      runs.push(() => runClosedPhase(engine!, 0, vus, now() + sliceMs, now));
    }
    if (open?.load.kind === 'rate') {
      const clamp = (perS: number): number => Math.min(MAX_WARM_RATE_PER_S, Math.max(MIN_WARM_RATE_PER_S, perS));
      const pacer = createPacer(rateLoad(clamp(open.load.fromPerS), clamp(open.load.toPerS)), sliceMs);
      runs.push(() => runOpenPhase(engine!, 0, pacer, sliceMs, now(), now));
    }
    for (const start of runs) {
      if (signal.aborted) break;
      enough = answered + WARM_UP_REQUESTS / slices;
      const run = (current = start());
      const stop = (): void => run.stop();
      signal.addEventListener('abort', stop, { once: true });
      await run.done;
      signal.removeEventListener('abort', stop);
    }
    await Promise.race([engine.stop(), new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
    return recorder.snapshot(now()).requests;
  } catch {
    return 0;
  } finally {
    engine?.abandonInFlight();
    await connections?.destroy();
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
