import { describe, expect, it } from 'vitest';
import type { CheckResult, RateLimitObservation, RunResult } from '../../../src/contract/result-schema.ts';
import type { ServerOptions } from '../../../src/server/options.ts';
import { startServerInWorker } from '../../../src/server/worker.ts';
import { runPlan, testPlan } from '../../support/load-run.ts';
import { slot } from '../../support/verify-reference.ts';

/**
 * A demo-like load run (one greedy client at 2.5× its quota, two light ones, 429 policy honour)
 * against the reference server's limiter algorithms and faults: what `run` judges from its own
 * traffic. The server runs in a worker thread so that its event loop does not pace the load.
 */
async function loadRun(
  limit: number,
  windowMs: number,
  options: ServerOptions,
  durationMs = 4 * windowMs,
): Promise<RunResult> {
  const server = await startServerInWorker({ limit, windowMs, ...options });
  try {
    // client-1 gets 10 of every 12 arrivals: 2.5 × its quota.
    const plan = testPlan(
      {
        name: 'passive',
        clients: { pattern: 'client-{n}', count: 3, secret: '${SECRET}', weights: { 'client-1': 10 } },
        scenarios: [{ name: 'ping', steps: [{ method: 'ping' }] }],
        phases: [{ name: 'load', duration: `${durationMs}ms`, rate: (3 * limit * 1000) / windowMs }],
        rateLimit: { limit, window: `${windowMs}ms`, on429: 'honour' },
      },
      server.url,
    );
    return (await runPlan(plan, server.url)).result;
  } finally {
    await server.close();
  }
}

const checkOf = (result: RunResult, id: string): CheckResult => result.checks.find((c) => c.id === id)!;
const explain = (c: CheckResult): string => `${c.verdict}: ${c.detail} ${JSON.stringify(c.evidence)}`;

interface WindowDetail {
  reading: string;
  resetFromMs: number;
  resetToMs: number;
  admittedMin: number;
  admittedMax: number;
}

const announcedWindows = (result: RunResult): RateLimitObservation[] =>
  result.rateLimit!.observations.filter((o) => o.kind === 'announced_window');

// 10 per 2 s: short, yet Retry-After's whole-second rounding is half a window. Runs wait for a slot
// (a loaded 2-core machine must still send faster than the contract); the time limit covers the wait.
const SHORT = [10, 2000] as const;
const shortRun = (options: ServerOptions): Promise<RunResult> => slot(() => loadRun(...SHORT, options));

describe.concurrent(
  'passive rate-limit checks of a load run (10 per 2 s, one greedy client)',
  { timeout: 120_000 },
  () => {
    it.each<[string, ServerOptions, 'pass' | 'fail', string]>([
      ['per-client fixed window', { algorithm: 'fixed' }, 'pass', 'exact'],
      ['clock-aligned window', { algorithm: 'fixed-aligned' }, 'pass', 'exact'],
      ['sliding log', { algorithm: 'sliding' }, 'pass', 'exact'],
      ['token bucket', { algorithm: 'token-bucket' }, 'fail', 'over'],
      ['limit + 1', { faults: ['limit-plus-one'] }, 'fail', 'over'],
      ['limit − 1', { faults: ['limit-minus-one'] }, 'fail', 'early'],
    ])(
      '%s: ratelimit.threshold %s, with the announced windows in the result file',
      async (_, options, verdict, reading) => {
        const result = await shortRun(options);
        const threshold = checkOf(result, 'ratelimit.threshold');
        expect(threshold.verdict, explain(threshold)).toBe(verdict);
        const windows = announcedWindows(result);
        expect(windows.length).toBeGreaterThanOrEqual(3);
        for (const w of windows.map((o) => o.detail as unknown as WindowDetail)) {
          expect(w.resetToMs).toBeGreaterThanOrEqual(w.resetFromMs);
          expect(w.admittedMax).toBeGreaterThanOrEqual(w.admittedMin);
        }
        const readings = windows.map((o) => (o.detail as unknown as WindowDetail).reading);
        expect(readings).toContain(reading);
        expect(checkOf(result, 'ratelimit.retry_after_honoured').verdict).toBe('pass');
      },
    );

    // Faults that break other rules: the passive threshold must not blame the quota for them.
    it.each<[string, ServerOptions]>([
      ['retry-after-floor', { faults: ['retry-after-floor'] }],
      ['retry-after-missing', { faults: ['retry-after-missing'] }],
      ['quota-per-token', { faults: ['quota-per-token'] }],
      ['quota-per-method', { faults: ['quota-per-method'] }],
      // A broken proxy's page in place of any reply, a refusal included: it says nothing about the limiter.
      ['chaos-html-502', { faults: ['chaos-html-502'], chaosRate: 0.2 }],
    ])('%s: no wrong ratelimit.threshold verdict', async (name, options) => {
      const result = await shortRun(options);
      const threshold = checkOf(result, 'ratelimit.threshold');
      expect(threshold.verdict, explain(threshold)).not.toBe('fail');
      const retry = checkOf(result, 'ratelimit.retry_after_honoured');
      const expected = {
        'retry-after-floor': ['fail'],
        'retry-after-missing': ['skip'],
        'chaos-html-502': ['pass', 'skip'],
      }[name] ?? ['pass'];
      expect(expected, explain(retry)).toContain(retry.verdict);
    });

    // The one test at the real contract: 100 per 10 s, about 22 s, every limiter at once (light load).
    it(
      'definite on every limiter: pass for fixed, clock-aligned and sliding windows, fail for token bucket and limit ± 1',
      { timeout: 90_000 },
      async () => {
        const cases: [ServerOptions, 'pass' | 'fail'][] = [
          [{ algorithm: 'fixed' }, 'pass'],
          [{ algorithm: 'fixed-aligned' }, 'pass'],
          [{ algorithm: 'sliding' }, 'pass'],
          [{ algorithm: 'token-bucket' }, 'fail'],
          [{ faults: ['limit-plus-one'] }, 'fail'],
          [{ faults: ['limit-minus-one'] }, 'fail'],
        ];
        const results = await Promise.all(cases.map(([options]) => loadRun(100, 10_000, options, 22_000)));
        const verdicts = results.map((r) => checkOf(r, 'ratelimit.threshold'));
        expect(
          verdicts.map((c) => c.verdict),
          verdicts.map(explain).join('\n'),
        ).toEqual(cases.map(([, verdict]) => verdict));
        expect(verdicts[4]!.detail).toMatch(/101/);
        expect(verdicts[5]!.detail).toMatch(/at most 99/);
      },
    );
  },
);
