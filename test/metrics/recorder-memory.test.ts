import { describe, expect, it } from 'vitest';
import { MAX_PERIODS_PER_CLIENT } from '../../src/metrics/ledger-data.ts';
import { MAX_FAILING_WINDOW_READINGS_AFTER, MAX_WINDOW_READINGS } from '../../src/metrics/announced-windows.ts';
import { MAX_OUTCOME_KEYS } from '../../src/metrics/outcome-table.ts';
import { MAX_RECENT_ERRORS } from '../../src/metrics/recent-errors.ts';
import { Recorder } from '../../src/metrics/recorder.ts';
import type { Sample } from '../../src/metrics/sample.ts';
import { DIMS } from '../support/recorder-fixtures.ts';
import { createRandom } from '../../src/util/random.ts';

const RATE_LIMIT = { limit: 100, windowMs: 1_000, policy: 'honour' } as const;

/**
 * Drive `count` samples spread over `durationS` seconds through one reused mutable sample, as the
 * driver does, with a hostile mix: unique error codes and details, 429s with and without
 * Retry-After, honoured retries.
 */
function drive(recorder: Recorder, count: number, durationS: number): void {
  const random = createRandom(1);
  const s = {
    methodIndex: 0,
    phaseIndex: 0,
    clientIndex: 0,
    outcome: '',
    status: 200,
    sentAtMs: 0,
    doneAtMs: 0,
    latencyUs: 0,
    serviceUs: 0,
    lagUs: 0,
    retryAfterS: -1,
    backoffWaitedMs: -1,
    backoffRetryAfterS: -1,
    detail: '',
  } satisfies Sample;
  for (let i = 0; i < count; i++) {
    const u = random();
    s.methodIndex = i % DIMS.methods.length;
    s.phaseIndex = i % DIMS.phases.length;
    s.clientIndex = i % DIMS.clients.length;
    s.sentAtMs = (i / count) * durationS * 1000;
    s.serviceUs = 500 + random() * 50_000;
    s.latencyUs = s.serviceUs + 100;
    s.doneAtMs = s.sentAtMs + s.serviceUs / 1000;
    s.status = u < 0.1 ? 500 : u < 0.3 ? 429 : 200;
    s.outcome = u < 0.1 ? `error:invented_${i}` : u < 0.3 ? 'error:rate_limit_exceeded' : 'success';
    s.retryAfterS = s.status === 429 ? (u < 0.2 ? Math.floor(random() * 1000) : -1) : -1;
    s.backoffWaitedMs = u > 0.95 ? 1000 : -1;
    s.backoffRetryAfterS = u > 0.95 ? 1 : -1;
    s.detail = s.status === 500 ? `request id ${i}` : '';
    recorder.record(s);
    if (i % 100 === 0) recorder.recordSkipped(`reason ${i}`);
  }
}

/** Everything the recorder retains, measured as sizes of what it hands out. */
function retained(recorder: Recorder) {
  const d = recorder.serialize();
  const clients = Object.values(d.ledger!.clients);
  return {
    outcomeKeys: Object.keys(d.overall.outcomes).length,
    byOutcome: Object.keys(d.byOutcome).length,
    timelineRows: d.timeline.length,
    recentErrors: d.recentErrors.length,
    skipReasons: Object.keys(d.skipped).length,
    maxPeriods: Math.max(...clients.map((c) => c.periods.length)),
    maxRetryAfterKeys: Math.max(...clients.map((c) => Object.keys(c.retryAfterS).length)),
    maxObservations: Math.max(...clients.map((c) => c.observations.length)),
    maxWindows: Math.max(...clients.map((c) => c.windows.length)),
    jsonBytes: JSON.stringify(d).length,
  };
}

describe('Recorder memory', () => {
  it('keeps nothing per request: 1,000,000 samples retain what 50,000 over the same span do', () => {
    const durationS = 600; // 600 windows per client: past the period cap
    const small = new Recorder(DIMS, { rateLimit: RATE_LIMIT });
    drive(small, 50_000, durationS);
    const large = new Recorder(DIMS, { rateLimit: RATE_LIMIT });
    drive(large, 1_000_000, durationS);
    const [a, b] = [retained(small), retained(large)];

    expect(b.outcomeKeys).toBeLessThanOrEqual(MAX_OUTCOME_KEYS);
    expect(b.byOutcome).toBe(b.outcomeKeys);
    expect(b.timelineRows).toBeLessThanOrEqual(durationS + 1);
    expect(b.recentErrors).toBe(MAX_RECENT_ERRORS);
    expect(b.skipReasons).toBeLessThanOrEqual(33);
    expect(b.maxPeriods).toBe(MAX_PERIODS_PER_CLIENT);
    expect(b.maxRetryAfterKeys).toBeLessThanOrEqual(33);
    expect(b.maxObservations).toBeLessThanOrEqual(11);
    expect(b.maxWindows).toBeLessThanOrEqual(MAX_WINDOW_READINGS + MAX_FAILING_WINDOW_READINGS_AFTER);
    // Same structure sizes; 20× the samples only widen the numbers in the data.
    expect({ ...b, jsonBytes: 0 }).toEqual({ ...a, jsonBytes: 0 });
    expect(b.jsonBytes).toBeLessThan(a.jsonBytes * 2);
  });
});
