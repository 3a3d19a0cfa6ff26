/**
 * Latency from the intended start is never shorter than service time, for every request of a real
 * run: whatever the think times between steps (fixed, uniform, exponential) and whatever Retry-After
 * back-offs the clients wait out. A timed continuation (after a think, after a back-off) is due at
 * the moment it was planned for and never sent before it: Node's timers may fire up to about a
 * millisecond early against the run's high-resolution clock, and a request sent then would count
 * its latency from a moment after its own send.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Recorder } from '../../src/metrics/recorder.ts';
import type { Sample } from '../../src/metrics/sample.ts';
import { startServer } from '../../src/server/start-server.ts';
import type { ServerHandle } from '../../src/server/options.ts';
import { runPlan, testPlan } from '../support/load-run.ts';

let server: ServerHandle;
beforeAll(async () => {
  // A small quota over a short window: the runs below meet 429s and wait out their Retry-After.
  server = await startServer({ limit: 12, windowMs: 1000 });
});
afterAll(() => server.close());

/** Every sample the recorders of this file see, checked as it is recorded (a Sample is refilled per request). */
const violations: string[] = [];
let checked = 0;
const record: (this: Recorder, sample: Sample) => void = Reflect.get<Recorder, 'record'>(Recorder.prototype, 'record');
beforeAll(() => {
  Recorder.prototype.record = function (this: Recorder, sample: Sample): void {
    checked++;
    if (sample.latencyUs < sample.serviceUs)
      violations.push(`latency ${sample.latencyUs} µs < service ${sample.serviceUs} µs (outcome ${sample.outcome})`);
    record.call(this, sample);
  };
});
afterAll(() => {
  Recorder.prototype.record = record;
});

const think = fc.oneof(
  fc.integer({ min: 2, max: 60 }).map((ms) => `${ms}ms`),
  fc
    .tuple(fc.integer({ min: 2, max: 30 }), fc.integer({ min: 1, max: 30 }))
    .map(([a, b]) => ({ uniform: [`${a}ms`, `${a + b}ms`] })),
  fc.integer({ min: 2, max: 40 }).map((ms) => ({ exponential: `${ms}ms` })),
);

describe('latency ≥ service time (property, real runs)', () => {
  it('holds for every request whatever the think times and back-offs', async () => {
    await fc.assert(
      fc.asyncProperty(
        think,
        think,
        fc.integer({ min: 30, max: 60 }),
        fc.boolean(),
        async (first, second, rate, open) => {
          const plan = testPlan(
            {
              clients: { pattern: 'client-{n}', count: 4, secret: '${SECRET}' },
              scenarios: [
                {
                  name: 'walk',
                  steps: [
                    { method: 'ping', think: first },
                    { method: 'echo', args: { n: '{{iteration}}' }, think: second },
                    { method: 'ping' },
                  ],
                },
              ],
              phases: [open ? { duration: '1200ms', rate } : { duration: '1200ms', concurrency: 4 }],
              rateLimit: { limit: 12, window: '1s', on429: 'honour' },
            },
            server.url,
          );
          const before = violations.length;
          await runPlan(plan, server.url);
          expect(violations.slice(before)).toEqual([]);
        },
      ),
      { numRuns: 6 },
    );
    expect(checked).toBeGreaterThan(100);
  }, 60_000);
});
