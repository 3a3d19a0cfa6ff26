import type { LiveClientRow, LiveSnapshot, LiveWorkloadRow } from '../../src/contract/live-snapshot.ts';
import type { Percentiles, TimelineRow } from '../../src/contract/result-schema.ts';
import type { RunFrameModel } from '../../src/ui/dashboard/run-model.ts';
import type { RunHeader } from '../../src/contract/live-view.ts';

/** Deterministic dashboard inputs: a header, snapshots and frame models with readable numbers. */
export function percentiles(p50: number, scale = 1): Percentiles {
  return {
    min: p50 / 4,
    mean: p50 * 1.5 * scale,
    p50,
    p90: p50 * 4 * scale,
    p99: p50 * 10 * scale,
    p999: p50 * 12 * scale,
    max: p50 * 15 * scale,
  };
}

export const HEADER: RunHeader = {
  profile: 'demo',
  target: 'http://127.0.0.1:41234',
  model: 'ramp 5→60/s · rate 60/s',
  phases: [
    { name: 'ramp-up', durationMs: 5000, load: 'ramp 5→60/s' },
    { name: 'steady', durationMs: 25_000, load: 'rate 60/s' },
  ],
  totalDurationMs: 30_000,
  resultPath: 'results/20250101T120000Z-demo.json',
  rateLimit: { limit: 100, windowMs: 10_000 },
};

/** Timeline rows 0 … seconds-1: a ramp to 60/s with a few 429s and errors, p50 ≈ 20 ms, p99 ≈ 200 ms. */
export function timeline(seconds: number): TimelineRow[] {
  return Array.from({ length: seconds }, (_, t) => {
    const requests = Math.min(60, 5 + t * 11);
    const rateLimited = t % 7 === 3 ? 4 : 0;
    const errors = t % 5 === 0 ? 1 : 0;
    return {
      t,
      requests,
      success: requests - rateLimited - errors,
      rateLimited,
      errors,
      p50: 18 + (t % 4),
      p99: 150 + ((t * 37) % 100),
    };
  });
}

export function client(id: string, overrides: Partial<LiveClientRow> = {}): LiveClientRow {
  return {
    id,
    sent: 40,
    admitted: 40,
    refused: 0,
    admittedInWindow: 12,
    lastRetryAfterS: null,
    lastRetryAfterAtMs: null,
    ...overrides,
  };
}

export function snapshot(overrides: Partial<LiveSnapshot> = {}): LiveSnapshot {
  const elapsedMs = overrides.elapsedMs ?? 12_400;
  return {
    elapsedMs,
    requests: 1234,
    outcomes: {
      success: 1180,
      'error:rate_limit_exceeded': 40,
      'error:unexpected_error': 12,
      'transport:UND_ERR_SOCKET': 2,
    },
    success: 1180,
    rateLimited: 40,
    errors: 14,
    latencyMs: percentiles(21.3),
    serviceTimeMs: percentiles(20.9),
    scheduleLagMs: percentiles(0.12, 1),
    rpsLastSecond: 60,
    rpsLast10s: 57.5,
    timeline: timeline(Math.floor(elapsedMs / 1000) + 1),
    clients: [
      client('client-1', {
        sent: 240,
        admitted: 200,
        refused: 40,
        admittedInWindow: 100,
        lastRetryAfterS: 6,
        lastRetryAfterAtMs: elapsedMs - 1800,
      }),
      client('client-2', { sent: 52, admitted: 52, admittedInWindow: 85 }),
      client('client-3', { sent: 47, admitted: 47 }),
      client('client-4', { sent: 41, admitted: 41 }),
      client('client-5', { sent: 39, admitted: 39 }),
    ],
    tokens: { requests: 24, failures: 0, latencyMs: percentiles(99) },
    skipped: {},
    recentErrors: [
      {
        source: 'api',
        outcome: 'error:unexpected_error',
        detail: 'flaky method failed on purpose',
        count: 12,
        firstAtMs: 900,
        lastAtMs: elapsedMs - 400,
      },
      {
        source: 'api',
        outcome: 'transport:UND_ERR_SOCKET',
        detail: 'other side closed',
        count: 2,
        firstAtMs: 3000,
        lastAtMs: 5200,
      },
    ],
    workloads: [
      {
        name: 'default',
        requests: 1234,
        success: 1180,
        rateLimited: 40,
        errors: 14,
        rpsLastSecond: 60,
        latencyMs: { p50: 21.3, p99: 213 },
        scheduleLagP99Ms: 1.2,
        goodput: 1180,
        skipped: 0,
      },
    ],
    ...overrides,
  };
}

export function model(overrides: Partial<RunFrameModel> = {}): RunFrameModel {
  return {
    header: HEADER,
    snapshot: snapshot(),
    gauges: null,
    stopReason: null,
    earlier: null,
    stopping: false,
    notices: [],
    help: false,
    ...overrides,
  };
}

/** A run of three workloads side by side: a rate, a concurrency flow and a replay at 2× starting at 1 s. */
export const WORKLOADS_HEADER: RunHeader = {
  ...HEADER,
  profile: 'shop',
  model: 'rate 40/s · concurrency 2 · replay ×2',
  workloads: [
    { name: 'browse', load: 'rate 40/s', open: true, startMs: 0, endMs: 30_000 },
    { name: 'orders', load: 'concurrency 2', open: false, startMs: 0, endMs: 30_000 },
    {
      name: 'recorded',
      load: 'replay ×2',
      open: true,
      startMs: 1000,
      endMs: 21_000,
      replay: { fileName: 'rec.jsonl', speed: 2, loop: false, callsInWindow: 400, maxCalls: null, passMs: 20_000 },
    },
  ],
  goodputBoundMs: 300,
};

export function workloadRow(name: string, overrides: Partial<LiveWorkloadRow> = {}): LiveWorkloadRow {
  return {
    name,
    requests: 400,
    success: 390,
    rateLimited: 6,
    errors: 4,
    rpsLastSecond: 39,
    latencyMs: { p50: 12.5, p99: 180 },
    scheduleLagP99Ms: 1.4,
    goodput: 385,
    skipped: 0,
    ...overrides,
  };
}

/** The frame model of WORKLOADS_HEADER 12.4 s in: the replay has released 228 calls, 3 skipped. */
export function workloadsModel(overrides: Partial<RunFrameModel> = {}): RunFrameModel {
  return model({
    header: WORKLOADS_HEADER,
    snapshot: snapshot({
      workloads: [
        workloadRow('browse'),
        workloadRow('orders', { rpsLastSecond: 21.5, scheduleLagP99Ms: null, rateLimited: 0, errors: 0, goodput: 310 }),
        workloadRow('recorded', { rpsLastSecond: 20, skipped: 3, latencyMs: { p50: 9.1, p99: 420 }, goodput: 200 }),
      ],
    }),
    gauges: { offeredPerS: [40, 0, 21], replayReleased: [0, 0, 228], inFlight: 3 },
    ...overrides,
  });
}
