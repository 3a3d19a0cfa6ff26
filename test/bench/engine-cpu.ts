/**
 * CPU time per request of the load engine, A/B between builds: a check of a hot-path change that
 * means something on a busy machine, where requests per second do not.
 *
 * Each measurement is a fresh Node process that imports one build's dist/, runs a closed-model
 * load (64 virtual users) and reads process.cpuUsage() and the recorder's request count over a
 * window that starts after one second (the JIT warm). Two modes:
 * - `socket`: runLoad with 64 connections against the raw-socket responder (a process of its own):
 *   everything a request costs, undici and the kernel's loopback included;
 * - `engine`: the LoadEngine alone, its connections replaced by an in-process stand-in that answers
 *   every request with the same success envelope on the next turn of the event loop: the engine,
 *   the classifier and the recorder without undici or sockets, so the figure moves with their code
 *   and far less with the neighbours' (a starved responder makes the socket figure swing).
 * In each round the builds run at the same time (so that they share whatever CPU the neighbours
 * leave); the report gives each build's best and median µs per request, the spread, and for two
 * builds the ratio of the second to the first per round and its median.
 *
 *   npx tsx test/bench/engine-cpu.ts [--mode engine|socket] [--rounds 6] [--seconds 4] DIST_A [DIST_B …]
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
import type { ConnectionSet } from '../../src/driver/connection-set.ts';
import type * as EngineModule from '../../src/driver/engine.ts';
import type { InFlightRequest } from '../../src/driver/in-flight-request.ts';
import type * as RunClockModule from '../../src/driver/run-clock.ts';
import type * as RunLoadModule from '../../src/driver/run-load.ts';
import type * as RecorderModule from '../../src/metrics/recorder.ts';
import type * as BuildPlanModule from '../../src/profile/build-plan.ts';
import type { Plan } from '../../src/profile/plan.ts';
import type * as RandomModule from '../../src/util/random.ts';
import { median } from './bench-stats.ts';
import { SUCCESS_BODY } from './bench-target.ts';
import { startRawResponder } from './raw-target.ts';

type Mode = 'engine' | 'socket';
const WARM_MS = 1000;
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
  };
}
type Build = Awaited<ReturnType<typeof importBuild>>;

/** Reads CPU time and requests at the window's start and end. */
function windowReader(read: () => number) {
  const marks: Measurement[] = [];
  const mark = (): void => {
    const cpu = process.cpuUsage();
    marks.push({ requests: read(), cpuUs: cpu.user + cpu.system });
  };
  return {
    arm(seconds: number): NodeJS.Timeout[] {
      return [setTimeout(mark, WARM_MS), setTimeout(mark, seconds * 1000 - 100)];
    },
    result(): Measurement {
      const [a, b] = marks;
      if (a === undefined || b === undefined) throw new Error('the run ended before its measuring window');
      return { requests: b.requests - a.requests, cpuUs: b.cpuUs - a.cpuUs };
    },
  };
}

function benchPlan(build: Build, target: string, seconds: number): Plan {
  return build.buildPlan(
    {
      target,
      clients: { pattern: 'bench-{n}', count: 4, secret: 'bench-secret' },
      scenarios: [{ name: 'ping', steps: [{ method: 'ping', args: { message: 'hello', n: 1 } }] }],
      phases: [{ name: 'load', duration: `${seconds}s`, concurrency: USERS }],
      http: { connections: USERS },
    },
    { source: '' },
  );
}

async function measureSocket(build: Build, url: string, seconds: number): Promise<Measurement> {
  const plan = benchPlan(build, url, seconds);
  const recorder = new build.Recorder(
    { methods: ['ping'], phases: ['load'], clients: plan.clients.map((c) => c.id) },
    { rateLimit: plan.rateLimit },
  );
  const clock = new build.RunClock();
  const reader = windowReader(() => recorder.snapshot(clock.now()).requests);
  let timers: NodeJS.Timeout[] = [];
  await build.runLoad({
    plan,
    baseUrl: url,
    recorder,
    clock,
    signal: new AbortController().signal,
    startClock: () => {
      clock.start();
      timers = reader.arm(seconds);
      return Promise.resolve();
    },
  });
  for (const timer of timers) clearTimeout(timer);
  return reader.result();
}

const REPLY_HEADERS = [Buffer.from('content-type'), Buffer.from('application/json')];
const REPLY_BODY = Buffer.from(SUCCESS_BODY);

/** Stands in for the ConnectionSet: answers every request with REPLY_BODY on the next turn of the event loop. */
class InstantConnections {
  private queue: InFlightRequest<unknown>[] = [];
  private scheduled = false;

  dispatch(request: InFlightRequest<unknown>): void {
    this.queue.push(request);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.answer);
    }
  }

  release(): void {}

  private readonly answer = (): void => {
    this.scheduled = false;
    const answering = this.queue;
    this.queue = [];
    for (const request of answering) {
      request.onConnect(() => undefined);
      request.onHeaders(200, REPLY_HEADERS);
      request.onData(REPLY_BODY);
      request.onComplete();
    }
  };
}

async function measureEngine(build: Build, seconds: number): Promise<Measurement> {
  const plan = benchPlan(build, 'http://127.0.0.1:9', seconds);
  const recorder = new build.Recorder(
    { methods: ['ping'], phases: ['load'], clients: plan.clients.map((c) => c.id) },
    { rateLimit: plan.rateLimit },
  );
  const clock = new build.RunClock();
  const clients = plan.clients.map((c, i) => new build.ClientIdentity(i, c.id, c.secret, c.weight));
  for (const client of clients) client.setToken('bench');
  const engine = new build.LoadEngine({
    compiled: build.compilePlan(plan, ''),
    connections: new InstantConnections() as unknown as ConnectionSet,
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
  });
  clock.start();
  const reader = windowReader(() => recorder.snapshot(clock.now()).requests);
  const timers = reader.arm(seconds);
  // Each build's closed loop starts users through its own engine's method.
  await build.runClosedPhase(engine, 0, USERS, seconds * 1000, clock.now).done;
  await engine.stop();
  engine.abandonInFlight();
  for (const timer of timers) clearTimeout(timer);
  return reader.result();
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
  if (args[0] === '--child') {
    const [, mode, dist, url, seconds] = args;
    const build = await importBuild(dist!);
    const result = mode === 'socket' ? await measureSocket(build, url!, Number(seconds)) : await measureEngine(build, Number(seconds));
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const mode = flag(args, '--mode', 'engine') as Mode;
  const rounds = Number(flag(args, '--rounds', '6'));
  const seconds = Number(flag(args, '--seconds', '4'));
  const dists = args.map((dist) => resolve(dist));
  if (dists.length === 0) throw new Error('usage: engine-cpu.ts [--mode engine|socket] [--rounds N] [--seconds S] DIST_A [DIST_B …]');
  const target = mode === 'socket' ? await startRawResponder() : null;
  const perRequestUs = new Map<string, number[]>(dists.map((dist) => [dist, []]));
  const ratios: number[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      // The builds of a round run at the same time, so that they share whatever the neighbours leave them.
      const figures = await Promise.all(dists.map((dist) => measureInChild(mode, dist, target?.url ?? '-', seconds)));
      figures.forEach((m, i) => {
        const us = m.cpuUs / m.requests;
        perRequestUs.get(dists[i]!)!.push(us);
        process.stdout.write(`round ${round + 1} ${dists[i]}: ${m.requests} requests, ${us.toFixed(2)} µs CPU per request\n`);
      });
      if (figures.length === 2) ratios.push(figures[1]!.cpuUs / figures[1]!.requests / (figures[0]!.cpuUs / figures[0]!.requests));
    }
  } finally {
    await target?.close();
  }
  for (const [dist, list] of perRequestUs) {
    const best = Math.min(...list);
    const spread = ((Math.max(...list) - best) / best) * 100;
    process.stdout.write(
      `${dist} (${mode}): best ${best.toFixed(2)} µs, median ${median(list).toFixed(2)} µs, worst ${Math.max(...list).toFixed(2)} µs per request (spread ${spread.toFixed(0)} %)\n`,
    );
  }
  if (ratios.length > 0) {
    const shown = ratios.map((r) => r.toFixed(3)).join(' ');
    process.stdout.write(`second ÷ first, per round: ${shown}; median ${median(ratios).toFixed(3)}\n`);
  }
}

async function measureInChild(mode: Mode, dist: string, url: string, seconds: number): Promise<Measurement> {
  const argv = ['--import', 'tsx', import.meta.filename, '--child', mode, dist, url, String(seconds)];
  const { stdout } = await promisify(execFile)(process.execPath, argv, { encoding: 'utf8' });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Measurement;
}

await main();
