import { FormatRegistry } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import {
  createCompactHistogram,
  createLatencyHistogram,
  encodeHistogram,
  percentilesMs,
  recordUs,
  type Histogram,
} from '../../src/metrics/hdr.ts';
import { outcomeClass } from '../../src/api/outcome.ts';
import {
  RunResultSchema,
  type CheckResult,
  type RateLimitClient,
  type RunResult,
  type Stats,
  type ThresholdResult,
} from '../../src/contract/result-schema.ts';
import { createRandom } from '../../src/util/random.ts';

/**
 * Realistic result files for the compare/merge/report tests, built the way the recorder builds
 * them: seeded, generated per-request samples recorded into real HDR histograms. `fixtureSamples`
 * and `buildResult` are separate so a test can split one set of samples into shards.
 */
export interface FixtureOptions {
  readonly seed: number;
  /** Arrivals per second (open model, constant). Default 100. */
  readonly rps?: number;
  readonly durationS?: number;
  /** Log-normal latency: median (ms) and spread (σ of ln). Default { median: 20, spread: 0.5 }. */
  readonly latencyMs?: { readonly median: number; readonly spread: number };
  /** Method name → weight of the scenario mix; later methods are slower (×1, ×1.5, ×2, …). */
  readonly methods?: Readonly<Record<string, number>>;
  readonly clients?: number;
  /** Explicit client ids (a shard's subset); default client-1 … client-N. */
  readonly clientIds?: readonly string[];
  /** Fraction of requests answered error:unexpected_error. Default 0.005. */
  readonly errorRate?: number;
  /** Fraction answered 429 rate_limit_exceeded. Default 0.02. */
  readonly rateLimitedRate?: number;
  /** First seconds run cold (latency ×2), like a real warm-up. Default 2. */
  readonly warmupS?: number;
  readonly startedAt?: string;
  readonly runId?: string;
  readonly profile?: string;
  readonly kind?: RunResult['run']['kind'];
  readonly checks?: readonly CheckResult[];
  readonly thresholds?: readonly ThresholdResult[];
  readonly warnings?: readonly string[];
  /** Merged over the generated config (e.g. different phases to make the load shape differ). */
  readonly config?: Readonly<Record<string, unknown>>;
}

export interface FixtureSample {
  /** Completion time, ms since the run start. */
  readonly tMs: number;
  readonly method: string;
  readonly client: string;
  readonly phase: string;
  readonly outcome: string;
  readonly latencyUs: number;
  readonly serviceUs: number;
  readonly lagUs: number;
}

const DEFAULT_METHODS = { ping: 3, 'items.list': 2, work: 1 };
const WINDOW_S = 10;

function clientIdsOf(o: FixtureOptions): readonly string[] {
  return o.clientIds ?? Array.from({ length: o.clients ?? 10 }, (_, i) => `client-${i + 1}`);
}

export function fixtureSamples(o: FixtureOptions): FixtureSample[] {
  const random = createRandom(o.seed);
  const gaussian = (): number => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const rps = o.rps ?? 100;
  const { median, spread } = o.latencyMs ?? { median: 20, spread: 0.5 };
  const methods = Object.entries(o.methods ?? DEFAULT_METHODS);
  const totalWeight = methods.reduce((sum, [, w]) => sum + w, 0);
  const clients = clientIdsOf(o);
  const errorRate = o.errorRate ?? 0.005;
  const limitedRate = o.rateLimitedRate ?? 0.02;
  const warmupS = o.warmupS ?? 2;
  const samples: FixtureSample[] = [];
  for (let second = 0; second < (o.durationS ?? 30); second++) {
    for (let i = 0; i < rps; i++) {
      let pick = random() * totalWeight;
      const methodIndex = Math.max(
        0,
        methods.findIndex(([, w]) => (pick -= w) < 0),
      );
      const u = random();
      const outcome =
        u < errorRate
          ? 'error:unexpected_error'
          : u < errorRate + limitedRate
            ? 'error:rate_limit_exceeded'
            : 'success';
      const cold = second < warmupS ? 2 : 1;
      const fast = outcome === 'success' ? 1 : 0.2; // refusals and errors answer early
      const serviceUs = median * 1000 * Math.exp(spread * gaussian()) * (1 + methodIndex * 0.5) * cold * fast;
      const lagUs = 50 + random() * 300;
      const intendedMs = second * 1000 + ((i + random()) * 1000) / rps;
      samples.push({
        tMs: Math.min(intendedMs + (lagUs + serviceUs) / 1000, (second + 1) * 1000 - 0.001),
        method: methods[methodIndex]![0],
        client: clients[Math.floor(random() * clients.length)]!,
        phase: second < warmupS ? 'warmup' : 'steady',
        outcome,
        latencyUs: serviceUs + lagUs,
        serviceUs,
        lagUs,
      });
    }
  }
  return samples;
}

interface StatsBuilder {
  requests: number;
  outcomes: Record<string, number>;
  latency: Histogram;
  serviceTime: Histogram;
}

function statsBuilder(compact = false): StatsBuilder {
  const make = compact ? createCompactHistogram : createLatencyHistogram;
  return { requests: 0, outcomes: {}, latency: make(), serviceTime: make() };
}

function add(builder: StatsBuilder, s: FixtureSample): void {
  builder.requests++;
  builder.outcomes[s.outcome] = (builder.outcomes[s.outcome] ?? 0) + 1;
  recordUs(builder.latency, s.latencyUs);
  recordUs(builder.serviceTime, s.serviceUs);
}

function groupBy(
  samples: readonly FixtureSample[],
  key: (s: FixtureSample) => string,
  compact = false,
): Map<string, StatsBuilder> {
  const groups = new Map<string, StatsBuilder>();
  for (const s of samples) {
    const k = key(s);
    let group = groups.get(k);
    if (!group) groups.set(k, (group = statsBuilder(compact)));
    add(group, s);
  }
  return new Map([...groups].sort(([a], [b]) => a.localeCompare(b)));
}

const toStats = (b: StatsBuilder, durationS: number): Stats => ({
  requests: b.requests,
  rps: b.requests / durationS,
  latencyMs: percentilesMs(b.latency),
  serviceTimeMs: percentilesMs(b.serviceTime),
  outcomes: b.outcomes,
});

const statsRecord = (groups: Map<string, StatsBuilder>, durationS: number): Record<string, Stats> =>
  Object.fromEntries([...groups].map(([k, b]) => [k, toStats(b, durationS)]));

const histogramRecord = (groups: Map<string, StatsBuilder>): Record<string, { latency: string; serviceTime: string }> =>
  Object.fromEntries(
    [...groups].map(([k, b]) => [
      k,
      { latency: encodeHistogram(b.latency), serviceTime: encodeHistogram(b.serviceTime) },
    ]),
  );

function timelineOf(samples: readonly FixtureSample[], durationS: number): RunResult['timeline'] {
  return Array.from({ length: durationS }, (_, t) => {
    const inSecond = samples.filter((s) => Math.floor(s.tMs / 1000) === t);
    const histogram = createLatencyHistogram();
    for (const s of inSecond) recordUs(histogram, s.latencyUs);
    const p = percentilesMs(histogram);
    const count = (cls: string): number => inSecond.filter((s) => outcomeClass(s.outcome) === cls).length;
    return {
      t,
      requests: inSecond.length,
      success: count('success'),
      rateLimited: count('rate_limited'),
      errors: count('error'),
      p50: p.p50,
      p99: p.p99,
    };
  });
}

function rateLimitClients(
  samples: readonly FixtureSample[],
  clients: readonly string[],
): Record<string, RateLimitClient> {
  return Object.fromEntries(
    clients.map((client) => {
      const own = samples.filter((s) => s.client === client);
      const refusedIn = (list: readonly FixtureSample[]) =>
        list.filter((s) => outcomeClass(s.outcome) === 'rate_limited').length;
      const windows = [...new Set(own.map((s) => Math.floor(s.tMs / 1000 / WINDOW_S) * WINDOW_S))].sort(
        (a, b) => a - b,
      );
      const periods = windows.map((t) => {
        const inWindow = own.filter((s) => Math.floor(s.tMs / 1000 / WINDOW_S) * WINDOW_S === t);
        return { t, admitted: inWindow.length - refusedIn(inWindow), refused: refusedIn(inWindow) };
      });
      const refused = refusedIn(own);
      const entry: RateLimitClient = {
        sent: own.length,
        admitted: own.length - refused,
        refused,
        periods,
        periodsTruncated: false,
        retryAfterS: refused > 0 ? { '3': refused } : {},
      };
      return [client, entry];
    }),
  );
}

/** A schema-valid `rpcload/result@1` file from samples (which need not cover every client). */
export function buildResult(samples: readonly FixtureSample[], o: FixtureOptions): RunResult {
  const durationS = o.durationS ?? 30;
  const rps = o.rps ?? 100;
  const clients = clientIdsOf(o);
  const startedAt = o.startedAt ?? '2025-03-01T10:00:00.000Z';
  const all = statsBuilder();
  const lag = createLatencyHistogram();
  for (const s of samples) {
    add(all, s);
    recordUs(lag, s.lagUs);
  }
  // One token per client, its latency a function of the client, so shards and the whole agree.
  const tokens = createLatencyHistogram();
  for (const client of clients)
    recordUs(tokens, 4000 + createRandom([...client].reduce((h, c) => h * 31 + c.charCodeAt(0), o.seed))() * 2000);
  const byMethod = groupBy(samples, (s) => s.method);
  const byPhase = groupBy(samples, (s) => s.phase);
  const lagByPhase = new Map<string, ReturnType<typeof createLatencyHistogram>>();
  for (const s of samples) {
    if (!lagByPhase.has(s.phase)) lagByPhase.set(s.phase, createLatencyHistogram());
    recordUs(lagByPhase.get(s.phase)!, s.lagUs);
  }
  const phaseStats = Object.fromEntries(
    [...byPhase].map(([k, b]) => [k, { ...toStats(b, durationS), scheduleLagMs: percentilesMs(lagByPhase.get(k)!) }]),
  );
  const byOutcome = groupBy(samples, (s) => s.outcome);
  const byClient = groupBy(samples, (s) => s.client, true);
  const warmupS = o.warmupS ?? 2;
  const phase = (name: string, seconds: number) => ({
    name,
    durationMs: seconds * 1000,
    load: { kind: 'rate', fromPerS: rps, toPerS: rps },
  });
  return {
    schema: 'rpcload/result@1',
    tool: { name: 'rpcload', version: '0.1.0' },
    run: {
      id: o.runId ?? `fixture-${o.seed}`,
      kind: o.kind ?? 'run',
      profile: o.profile ?? 'fixture',
      startedAt,
      endedAt: new Date(Date.parse(startedAt) + durationS * 1000).toISOString(),
      status: 'completed',
      target: 'http://127.0.0.1:8080',
      embeddedTarget: false,
      model: 'open',
      workers: 1,
      shards: 1,
      node: 'v20.19.0',
      host: 'fixture-host',
    },
    config: {
      name: o.profile ?? 'fixture',
      phases: [phase('warmup', warmupS), phase('steady', durationS - warmupS)],
      scenarios: Object.entries(o.methods ?? DEFAULT_METHODS).map(([method, weight]) => ({
        name: method,
        weight,
        steps: [{ method }],
      })),
      clients: clients.map((id) => ({ id, secret: '[redacted]', weight: 1 })),
      rateLimit: { limit: 100, windowMs: WINDOW_S * 1000, policy: 'honour' },
      ...o.config,
    },
    summary: {
      ...toStats(all, durationS),
      durationS,
      scheduleLagMs: percentilesMs(lag),
      tokens: {
        requests: clients.length,
        failures: 0,
        latencyMs: percentilesMs(tokens),
        outcomes: { success: clients.length },
      },
      skipped: {},
    },
    byMethod: statsRecord(byMethod, durationS),
    byClient: statsRecord(byClient, durationS),
    byPhase: phaseStats,
    byOutcome: statsRecord(byOutcome, durationS),
    timeline: timelineOf(samples, durationS),
    histograms: {
      latency: encodeHistogram(all.latency),
      serviceTime: encodeHistogram(all.serviceTime),
      scheduleLag: encodeHistogram(lag),
      scheduleLagByPhase: Object.fromEntries([...lagByPhase].map(([k, h]) => [k, encodeHistogram(h)])),
      tokens: encodeHistogram(tokens),
      byMethod: histogramRecord(byMethod),
      byPhase: histogramRecord(byPhase),
      byOutcome: histogramRecord(byOutcome),
      byClient: histogramRecord(byClient),
    },
    rateLimit: {
      limit: 100,
      windowS: WINDOW_S,
      policy: 'honour',
      clients: rateLimitClients(samples, clients),
      observations: [],
    },
    checks: [...(o.checks ?? [])],
    thresholds: [...(o.thresholds ?? [])],
    warnings: [...(o.warnings ?? [])],
  };
}

/** Generate and build in one go: the usual way to get a realistic result file. */
export function makeResult(o: FixtureOptions): RunResult {
  return buildResult(fixtureSamples(o), o);
}

// TypeBox checks no string format it does not know; the schema's run timestamps are date-times.
if (!FormatRegistry.Has('date-time'))
  FormatRegistry.Set(
    'date-time',
    (v) => /^\d{4}-\d{2}-\d{2}T[\d:.]+(?:Z|[+-]\d{2}:\d{2})$/.test(v) && !Number.isNaN(Date.parse(v)),
  );

/** Schema violations of a result (`/json/path: message`); empty when it is a valid result@1 file. */
export function schemaProblems(result: unknown): string[] {
  return [...Value.Errors(RunResultSchema, result)].map((e) => `${e.path}: ${e.message}`);
}
