import { Recorder } from '../../src/metrics/recorder.ts';
import type { RecordedData } from '../../src/metrics/recorded-data.ts';
import type { Sample, TokenSample } from '../../src/metrics/sample.ts';
import { buildRunResult, type BuildResultInput } from '../../src/session/result/build-result.ts';
import type { RunInfo, RunResult } from '../../src/contract/result-schema.ts';
import { DIMS, generateSamples, tokenSample } from '../metrics/sample-factory.ts';

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
export function recordedData(samples: readonly Sample[], tokens: readonly TokenSample[] = DIMS.clients.map((_, i) => tokenSample({ clientIndex: i, latencyUs: 4000 + i * 500 }))): RecordedData {
  const recorder = new Recorder(DIMS, { rateLimit: RATE_LIMIT });
  for (const s of [...samples].sort((a, b) => a.doneAtMs - b.doneAtMs)) recorder.record(s);
  for (const t of tokens) recorder.recordToken(t);
  return recorder.serialize();
}

export function buildInput(data: RecordedData, overrides: Partial<BuildResultInput> = {}): BuildResultInput {
  return { run: RUN, config: { name: 'demo', rateLimit: RATE_LIMIT }, data, dims: DIMS, checks: [], thresholds: [], warnings: [], ...overrides };
}

/** A realistic, schema-valid result: 4000 generated samples over 20 s. */
export function sampleResult(overrides: Partial<BuildResultInput> = {}): RunResult {
  return buildRunResult(buildInput(recordedData(generateSamples(4000, 5, 20)), overrides));
}
