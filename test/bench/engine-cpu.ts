/**
 * CPU time per request of the load engine, A/B between builds: a check of a hot-path change that
 * means something on a busy machine, where requests per second do not. Each build is one dist/
 * directory; every figure is process CPU time (process.cpuUsage) over the requests recorded, in a
 * closed-model load of 64 virtual users. Two modes:
 *
 * - `engine` (default): one process imports every build and runs their LoadEngines in turn, in
 *   short slices (build A, build B, B, A, …), each engine's connections replaced by an in-process
 *   stand-in that answers every request with the same success envelope on the next turn of the
 *   event loop. That is the engine, the classifier and the recorder without undici or sockets, and
 *   alternating slices of a few hundred ms share whatever CPU the neighbours leave: the most
 *   robust figure on a shared machine. Reports each build's best and median µs per request and the
 *   median ratio of the second build to the first over pairs of neighbouring slices.
 * - `socket`: each round runs every build at once, each in a fresh process, runLoad with 64
 *   connections against the raw-socket responder (a process of its own), measured over a window
 *   that starts after one second: everything a request costs, undici and the kernel's loopback
 *   included — and so everything the neighbours disturb.
 *
 *   npx tsx test/bench/engine-cpu.ts [--mode engine|socket] [--rounds N] [--slice-ms MS | --seconds S] DIST_A DIST_B
 *
 * BENCH_TRACE_A / BENCH_TRACE_B (always | sampled | off) set the profile's http.traceContext of the
 * first / second build (builds with trace context only): one dist against itself then measures
 * what the trace context costs.
 *
 * A dist directory outside the repository needs a node_modules beside it (a symlink to this one).
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type * as ClientIdentityModule from '../../src/driver/client-identity.ts';
import type * as ClosedLoopModule from '../../src/driver/closed-loop.ts';
import type * as CompiledPlanModule from '../../src/driver/compiled-plan.ts';
import type { ReplicaRouter } from '../../src/driver/replica-router.ts';
import type * as EngineModule from '../../src/driver/engine.ts';
import type * as RunClockModule from '../../src/driver/run-clock.ts';
import type * as RunLoadModule from '../../src/driver/run-load.ts';
import type * as RecorderModule from '../../src/metrics/recorder.ts';
import type * as BuildPlanModule from '../../src/profile/build-plan.ts';
import type { Plan } from '../../src/profile/plan.ts';
import type * as RandomModule from '../../src/util/random.ts';
import type * as TraceContextModule from '../../src/driver/trace-context.ts';
import { median } from './bench-stats.ts';
import { SUCCESS_BODY } from './bench-target.ts';
import { startRawResponder } from './raw-target.ts';

const USERS = 64;

interface Measurement {
  readonly requests: number;
  readonly cpuUs: number;
}

/** One build's modules, imported from its dist/. */
async function importBuild(dist: string) {
  const load = async <T>(path: string): Promise<T> => (await import(pathToFileURL(resolve(dist, path)).href)) as T;
  return {
    ...(await load<typeof BuildPlanModule>('profile/build-plan.js')),
    ...(await load<typeof RunLoadModule>('driver/run-load.js')),
    ...(await load<typeof RecorderModule>('metrics/recorder.js')),
    ...(await load<typeof RunClockModule>('driver/run-clock.js')),
    ...(await load<typeof EngineModule>('driver/engine.js')),
    ...(await load<typeof ClosedLoopModule>('driver/closed-loop.js')),
    ...(await load<typeof CompiledPlanModule>('driver/compiled-plan.js')),
    ...(await load<typeof ClientIdentityModule>('driver/client-identity.js')),
    ...(await load<typeof RandomModule>('util/random.js')),
    // Absent from builds before trace context.
    trace: await load<typeof TraceContextModule>('driver/trace-context.js').catch(() => null),
  };
}
type Build = Awaited<ReturnType<typeof importBuild>>;

function cpuUs(): number {
  const cpu = process.cpuUsage();
  return cpu.user + cpu.system;
}

function benchPlan(build: Build, target: string, durationS: number, traceContext?: string): Plan {
  const http = { connections: USERS, ...(traceContext === undefined ? {} : { traceContext }) } as Record<
    string,
    unknown
  >;
  return build.buildPlan(
    {
      target,
      clients: { pattern: 'bench-{n}', count: 4, secret: 'bench-secret' },
      scenarios: [{ name: 'ping', steps: [{ method: 'ping', args: { message: 'hello', n: 1 } }] }],
      phases: [{ name: 'load', duration: `${durationS}s`, concurrency: USERS }],
      http,
    },
    { source: '' },
  );
}

function newRecorder(build: Build, plan: Plan): RecorderModule.Recorder {
  return new build.Recorder(
    { methods: ['ping'], phases: ['load'], clients: plan.clients.map((c) => c.id) },
    { rateLimit: plan.rateLimit },
  );
}

const REPLY_HEADERS = ['content-type', 'application/json'];
const REPLY_RAW_HEADERS = REPLY_HEADERS.map((text) => Buffer.from(text));

/**
 * An engine's request as the stand-in answers it: told through rpcload's connection contract
 * (onRequestSent…), or, in builds before it, through undici's handler callbacks (onConnect…).
 */
interface EngineRequest {
  onRequestSent?(carrier: unknown): void;
  onResponseHead?(status: number, headers: readonly string[]): void;
  onResponseData?(chunk: Buffer): void;
  onResponseEnd?(): void;
  onConnect?(abort: () => void): void;
  onHeaders?(status: number, rawHeaders: Buffer[]): boolean;
  onData?(chunk: Buffer): boolean;
  onComplete?(): void;
}

/**
 * What the stand-in hands a request to cut it short with: one for every request, so the stand-in
 * allocates nothing per request (a carrier made per request cost the engine's figure ~15 %).
 */
const CARRIER = { cut: (): void => undefined };
const ABORT = (): void => undefined;

function answer(request: EngineRequest): void {
  if (request.onResponseEnd !== undefined) {
    request.onRequestSent!(CARRIER);
    request.onResponseHead!(200, REPLY_HEADERS);
    request.onResponseData!(REPLY_BODY);
    request.onResponseEnd();
    return;
  }
  request.onConnect!(ABORT);
  request.onHeaders!(200, REPLY_RAW_HEADERS);
  request.onData!(REPLY_BODY);
  request.onComplete!();
}
const REPLY_BODY = Buffer.from(SUCCESS_BODY);

/** Stands in for the ConnectionSet: answers every request with REPLY_BODY on the next turn of the event loop. */
class InstantConnections {
  /**
   * Builds before the connection contract asked their connections whether they take a request's
   * traceparent apart from its header list: rpcload's HTTP/1.1 client, their default, did.
   */
  readonly sendsTraceparentApart = true;
  private queue: EngineRequest[] = [];
  private scheduled = false;

  dispatch(request: EngineRequest): void {
    this.queue.push(request);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.answer);
    }
  }

  release(): void {}

  /** Every request on the one route. */
  pick(): number {
    return 0;
  }

  get queued(): number {
    return this.queue.length;
  }

  private readonly answer = (): void => {
    this.scheduled = false;
    const answering = this.queue;
    this.queue = [];
    for (const request of answering) answer(request);
  };
}

/** A build's engine on the stand-in connections, run slice by slice. */
async function engineBench(dist: string, traceContext: string | undefined) {
  const build = await importBuild(dist);
  const plan = benchPlan(build, 'http://127.0.0.1:9', 3600, traceContext);
  const recorder = newRecorder(build, plan);
  const clock = new build.RunClock();
  const clients = plan.clients.map((c, i) => new build.ClientIdentity(i, c.id, c.secret, c.weight));
  for (const client of clients) client.setToken('bench');
  const engine = new build.LoadEngine({
    // A build from before replicas took one base path: [''] reads as '' there.
    compiled: build.compilePlan(plan, ['']),
    connections: new InstantConnections() as unknown as ReplicaRouter,
    recorder,
    clients,
    tokens: { onInvalidToken: () => undefined },
    rateLimit: plan.rateLimit,
    bodyCapBytes: plan.http.bodyCapBytes,
    maxBodyBytes: plan.http.maxResponseBytes,
    requestTimeoutMs: plan.http.requestTimeoutMs,
    maxInFlight: plan.http.maxInFlight,
    now: clock.now,
    random: build.createRandom(plan.seed),
    ...(build.trace === null
      ? {}
      : {
          traceMode: plan.trace.mode,
          traceIds: new build.trace.TraceIds(plan.trace),
          staticHeaders: build.trace.staticTraceHeaders(plan.trace, build.trace.USER_AGENT),
        }),
  } as EngineModule.EngineOptions);
  clock.start();
  const requests = (): number => recorder.snapshot(clock.now()).requests;
  return {
    /** Run the engine for `ms` (each build's closed loop starts users through its own engine). */
    async slice(ms: number): Promise<Measurement> {
      const [cpu0, requests0] = [cpuUs(), requests()];
      await build.runClosedPhase(engine, 0, USERS, clock.now() + ms, clock.now).done;
      // The users' last iterations end on the next turns; they start nothing more.
      for (let i = 0; i < 2; i++) await new Promise((resolveTurn) => setImmediate(resolveTurn));
      return { requests: requests() - requests0, cpuUs: cpuUs() - cpu0 };
    },
  };
}

async function engineMode(dists: readonly string[], rounds: number, sliceMs: number): Promise<void> {
  if (dists.length !== 2) throw new Error('engine mode compares two builds');
  const [a, b] = await Promise.all(
    dists.map((dist, i) => engineBench(dist, process.env[i === 0 ? 'BENCH_TRACE_A' : 'BENCH_TRACE_B'])),
  );
  for (let i = 0; i < 4; i++) for (const bench of [a!, b!]) await bench.slice(sliceMs); // JIT warm
  const perRequest: [number[], number[]] = [[], []];
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    const figures: number[] = [0, 0];
    for (const i of order) {
      const m = await [a!, b!][i]!.slice(sliceMs);
      figures[i] = m.cpuUs / m.requests;
      perRequest[i as 0 | 1].push(figures[i]);
    }
    ratios.push(figures[1]! / figures[0]!);
  }
  dists.forEach((dist, i) => report(dist, 'engine', perRequest[i as 0 | 1]));
  process.stdout.write(
    `second ÷ first over ${rounds} pairs of slices: median ${median(ratios).toFixed(3)}, ${quartiles(ratios)}\n`,
  );
}

async function measureSocket(dist: string, url: string, seconds: number): Promise<Measurement> {
  const build = await importBuild(dist);
  const plan = benchPlan(build, url, seconds);
  const recorder = newRecorder(build, plan);
  const clock = new build.RunClock();
  const marks: Measurement[] = [];
  const mark = (): number => marks.push({ requests: recorder.snapshot(clock.now()).requests, cpuUs: cpuUs() });
  let timers: NodeJS.Timeout[] = [];
  await build.runLoad({
    plan,
    baseUrl: url,
    recorder,
    clock,
    signal: new AbortController().signal,
    startClock: () => {
      clock.start();
      // From one second in (JIT warm) to just before the end.
      timers = [setTimeout(mark, 1000), setTimeout(mark, seconds * 1000 - 100)];
      return Promise.resolve();
    },
  });
  for (const timer of timers) clearTimeout(timer);
  const [first, last] = marks;
  if (first === undefined || last === undefined) throw new Error('the run ended before its measuring window');
  return { requests: last.requests - first.requests, cpuUs: last.cpuUs - first.cpuUs };
}

async function socketMode(dists: readonly string[], rounds: number, seconds: number): Promise<void> {
  const target = await startRawResponder();
  const perRequest = dists.map((): number[] => []);
  const ratios: number[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      const figures = await Promise.all(
        dists.map(async (dist) => {
          const argv = ['--import', 'tsx', import.meta.filename, '--socket-child', dist, target.url, String(seconds)];
          const { stdout } = await promisify(execFile)(process.execPath, argv, { encoding: 'utf8' });
          const m = JSON.parse(stdout.trim().split('\n').at(-1)!) as Measurement;
          return m.cpuUs / m.requests;
        }),
      );
      figures.forEach((us, i) => perRequest[i]!.push(us));
      if (figures.length === 2) ratios.push(figures[1]! / figures[0]!);
    }
  } finally {
    await target.close();
  }
  dists.forEach((dist, i) => report(dist, 'socket', perRequest[i]!));
  if (ratios.length > 0)
    process.stdout.write(
      `second ÷ first over ${rounds} rounds: median ${median(ratios).toFixed(3)}, ${quartiles(ratios)}\n`,
    );
}

function report(dist: string, mode: string, list: readonly number[]): void {
  const best = Math.min(...list);
  process.stdout.write(
    `${dist} (${mode}): best ${best.toFixed(2)} µs, median ${median(list).toFixed(2)} µs, worst ${Math.max(...list).toFixed(2)} µs CPU per request\n`,
  );
}

function quartiles(values: readonly number[]): string {
  const sorted = [...values].sort((x, y) => x - y);
  const at = (q: number): string => sorted[Math.floor(q * (sorted.length - 1))]!.toFixed(3);
  return `quartiles ${at(0.25)}–${at(0.75)}, range ${at(0)}–${at(1)}`;
}

function flag(args: string[], name: string, fallback: string): string {
  const at = args.indexOf(name);
  if (at === -1) return fallback;
  const value = args[at + 1]!;
  args.splice(at, 2);
  return value;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--socket-child') {
    const [, dist, url, seconds] = args;
    process.stdout.write(`${JSON.stringify(await measureSocket(dist!, url!, Number(seconds)))}\n`);
    return;
  }
  const mode = flag(args, '--mode', 'engine');
  const rounds = Number(flag(args, '--rounds', mode === 'engine' ? '80' : '8'));
  const sliceMs = Number(flag(args, '--slice-ms', '250'));
  const seconds = Number(flag(args, '--seconds', '4'));
  const dists = args.map((dist) => resolve(dist));
  if (dists.length < 2)
    throw new Error(
      'usage: engine-cpu.ts [--mode engine|socket] [--rounds N] [--slice-ms MS | --seconds S] DIST_A DIST_B',
    );
  if (mode === 'socket') await socketMode(dists, rounds, seconds);
  else await engineMode(dists, rounds, sliceMs);
}

await main();
// The engines' sweep timers are unref'd; the stand-ins hold nothing open.
process.exit(0);
