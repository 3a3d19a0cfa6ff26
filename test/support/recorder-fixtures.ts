/**
 * Recorder-level test fixtures: samples with sensible defaults, seeded sample streams, exact
 * nearest-rank percentiles, and results built from them the way a run builds its file.
 */
import type { RecorderDimensions, Sample, TokenSample } from '../../src/metrics/sample.ts';
import { TraceIds, type SpanWords, type TraceWords } from '../../src/driver/trace-context.ts';
import { TRACE_SAMPLED, TRACE_SENT } from '../../src/metrics/exemplars.ts';
import { createRandom } from '../../src/util/random.ts';
import { Recorder } from '../../src/metrics/recorder.ts';
import type { RecordedData } from '../../src/metrics/recorded-data.ts';
import { buildRunResult, type BuildResultInput } from '../../src/session/result/build-result.ts';
import type { RunInfo, RunResult } from '../../src/contract/result-schema.ts';

export function sample(overrides: Partial<Sample> = {}): Sample {
  return {
    methodIndex: 0,
    phaseIndex: 0,
    clientIndex: 0,
    outcome: 'success',
    status: 200,
    sentAtMs: 0,
    doneAtMs: 1,
    latencyUs: 1000,
    serviceUs: 900,
    lagUs: 100,
    retryAfterS: -1,
    backoffWaitedMs: -1,
    backoffRetryAfterS: -1,
    detail: '',
    ...overrides,
  };
}

export function tokenSample(overrides: Partial<TokenSample> = {}): TokenSample {
  return { clientIndex: 0, outcome: 'success', latencyUs: 5000, doneAtMs: 1, detail: '', ...overrides };
}

/**
 * The value HDR's getValueAtPercentile targets: rank max(ceil(p/100 · n), 1) of the sorted values,
 * in integer arithmetic (0.999 · 10000 is 9990.000000000002 in floating point).
 */
export function nearestRank(sortedAscending: readonly number[], percentile: number): number {
  const rank = Math.max(Math.ceil((Math.round(percentile * 1000) * sortedAscending.length) / 100_000), 1);
  return sortedAscending[rank - 1]!;
}

export const DIMS: RecorderDimensions = {
  methods: ['ping', 'items.list', 'work'],
  phases: ['warmup', 'steady'],
  clients: ['c1', 'c2', 'c3', 'c4'],
};

export const OUTCOMES = [
  'success',
  'error:rate_limit_exceeded',
  'error:unexpected_error',
  'transport:UND_ERR_SOCKET',
] as const;
const STATUS: Readonly<Record<string, number>> = {
  success: 200,
  'error:rate_limit_exceeded': 429,
  'error:unexpected_error': 500,
  'transport:UND_ERR_SOCKET': 0,
};

/**
 * `count` samples over `durationS` seconds: method m takes (m+1)× a log-uniform 1–50 ms service
 * time, phases split the time, clients rotate, outcomes are drawn with 85/8/5/2 % weights.
 */
export function recorderSamples(count: number, seed: number, durationS = 20): Sample[] {
  const random = createRandom(seed);
  // Trace and span ids as the driver draws them (from their own stream: the figures above stay as they were).
  const ids = new TraceIds({ seed, stream: 0, sampleRatio: 0.5 });
  return Array.from({ length: count }, (_, i) => {
    const trace: TraceWords = { trace0: 0, trace1: 0, trace2: 0, trace3: 0, traceSampled: false };
    const span: SpanWords = { span0: 0, span1: 0 };
    ids.nextTrace(trace);
    ids.nextSpan(span);
    const methodIndex = Math.floor(random() * DIMS.methods.length);
    const u = random();
    const outcome = u < 0.85 ? OUTCOMES[0] : u < 0.93 ? OUTCOMES[1] : u < 0.98 ? OUTCOMES[2] : OUTCOMES[3];
    const serviceUs = 1000 * Math.exp(random() * Math.log(50)) * (methodIndex + 1);
    const lagUs = Math.floor(random() * 400);
    const sentAtMs = (i / count) * durationS * 1000;
    return sample({
      methodIndex,
      phaseIndex: sentAtMs < durationS * 200 ? 0 : 1,
      clientIndex: i % DIMS.clients.length,
      outcome,
      status: STATUS[outcome]!,
      sentAtMs,
      doneAtMs: sentAtMs + serviceUs / 1000,
      serviceUs,
      latencyUs: serviceUs + lagUs,
      lagUs,
      retryAfterS: outcome === OUTCOMES[1] ? 3 : -1,
      detail: outcome === 'success' ? '' : `detail of ${outcome}`,
      ...trace,
      ...span,
      traceFlags: TRACE_SENT | (trace.traceSampled ? TRACE_SAMPLED : 0),
    });
  });
}

export const RATE_LIMIT = { limit: 100, windowMs: 10_000, policy: 'honour' } as const;

export const RUN: RunInfo = {
  id: 'run-1',
  kind: 'run',
  profile: 'demo',
  startedAt: '2026-11-22T12:55:00.000Z',
  endedAt: '2026-11-22T12:55:20.000Z',
  status: 'completed',
  target: 'http://127.0.0.1:8080',
  embeddedTarget: true,
  model: 'open',
  workers: 1,
  shards: 1,
  node: 'v20.19.0',
  host: 'test-host',
};

/** Recorded data of samples (recorded in completion order) plus a token request per client. */
export function recordedData(
  samples: readonly Sample[],
  tokens: readonly TokenSample[] = DIMS.clients.map((_, i) =>
    tokenSample({ clientIndex: i, latencyUs: 4000 + i * 500 }),
  ),
): RecordedData {
  const recorder = new Recorder(DIMS, { rateLimit: RATE_LIMIT });
  for (const s of [...samples].sort((a, b) => a.doneAtMs - b.doneAtMs)) recorder.record(s);
  for (const t of tokens) recorder.recordToken(t);
  return recorder.serialize();
}

export function buildInput(data: RecordedData, overrides: Partial<BuildResultInput> = {}): BuildResultInput {
  return {
    run: RUN,
    config: { name: 'demo', rateLimit: RATE_LIMIT },
    data,
    dims: DIMS,
    checks: [],
    thresholds: [],
    warnings: [],
    ...overrides,
  };
}

/** A realistic, schema-valid result: 4000 generated samples over 20 s. */
export function sampleResult(overrides: Partial<BuildResultInput> = {}): RunResult {
  return buildRunResult(buildInput(recordedData(recorderSamples(4000, 5, 20)), overrides));
}
