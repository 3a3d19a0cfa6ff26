/**
 * `capacity --workload`: the search scales one workload while another runs beside it at its own
 * steady rate. The embedded reference server has one service-capacity queue for every call, so the
 * searched workload's hidden capacity is the server's less what the other workload takes of it.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateRunResult } from '../../src/result-file/validate-result.ts';
import { buildPlan } from '../../src/profile/build-plan.ts';
import { capacitySession } from '../../src/session/capacity/capacity-session.ts';
import { useTempDir } from '../support/temp-dir.ts';

/** The embedded server sustains this many calls per second, whichever workload sends them. */
const SERVER_CAPACITY = 200;
/** The workload beside the searched one, at a steady rate. */
const BACKGROUND_PER_S = 20;
/** What is left for the searched workload: its hidden capacity. */
const HIDDEN = SERVER_CAPACITY - BACKGROUND_PER_S;
const dir = useTempDir('rpcload-capacity-workload-');

type Threshold = string | { threshold: string; abortOnFail?: boolean };
const RATE = { phases: [{ duration: '1s', rate: 1 }] };

const profile = (capacity: Record<string, unknown>, thresholds: Threshold[] = [], checkoutLoad: object = RATE) =>
  buildPlan(
    {
      name: 'two-workloads',
      server: { capacity: { rate: SERVER_CAPACITY, workers: 4 } },
      clients: { pattern: 'client-{n}', count: 30 },
      scenarios: [
        { name: 'buy', steps: [{ method: 'ping' }] },
        { name: 'look', steps: [{ method: 'echo', args: { from: 'background' } }] },
      ],
      workloads: [
        { name: 'checkout', scenarios: ['buy'], ...checkoutLoad },
        {
          name: 'background',
          clients: { pattern: 'bg-{n}', count: 4 },
          scenarios: ['look'],
          phases: [{ duration: '10m', rate: BACKGROUND_PER_S }],
        },
      ],
      thresholds,
      http: { connections: 32, maxInFlight: 5000 },
      capacity: { warmUp: '1s', hold: '2s', confirm: '0s', maxLag: '1s', start: 50, ...capacity },
    },
    { source: '' },
  );

describe('capacity of one workload while another runs beside it', () => {
  it(
    "finds the searched workload's hidden capacity within 12 %; the other kept its rate in every step",
    { retry: 1, timeout: 120_000 },
    async () => {
      const out = await capacitySession({
        plan: profile({ workload: 'checkout', slo: ['p99 < 400ms'] }),
        outPath: join(dir, 'checkout.json'),
        signal: new AbortController().signal,
      });
      process.stdout.write(`[capacity --workload checkout] ${out.record.finding}\n`);
      expect(validateRunResult(out.result)).toEqual([]);
      const { record, result } = out;
      expect(record.workload).toBe('checkout');
      expect(record.finding).toMatch(/^checkout: capacity \d+ requests\/s /);
      // The SLO line judged the searched workload's own requests.
      expect(record.slo[0]).toBe('p99{workload:checkout} < 400ms');
      expect(record.ratePerS).not.toBeNull();
      expect(Math.abs(record.ratePerS! - HIDDEN) / HIDDEN).toBeLessThanOrEqual(0.12);
      // Not the whole server's capacity: the background's share was accounted for by the server's queue.
      expect(record.bracket[1]).toBeLessThanOrEqual(SERVER_CAPACITY * 1.05);
      for (const step of record.steps) {
        // The step's hold counts the searched workload's requests only (ping), the background ran in its own phase.
        expect(result.byPhase[step.phase]!.requests).toBe(step.requests);
        const background = Object.entries(result.byPhase).filter(([name]) =>
          name.startsWith(`${step.phase} background/`),
        );
        expect(background).toHaveLength(1);
        const stepS = (step.holdS * 1000 + 1000) / 1000;
        const perS = background[0]![1].requests / stepS;
        expect(Math.abs(perS - BACKGROUND_PER_S) / BACKGROUND_PER_S).toBeLessThanOrEqual(0.1);
      }
    },
  );

  it(
    'an abortOnFail line that fails ends the step there, failed by it, and the search goes on',
    { timeout: 120_000 },
    async () => {
      // Holds of 4 s from 100/s, then 300/s: with the background that queues 0.6 s of calls per second, so p99
      // is past 300 ms as the hold starts and the line stops that step long before its end.
      const out = await capacitySession({
        plan: profile({ workload: 'checkout', hold: '4s', start: 100, factor: 3, tolerance: 0.25 }, [
          { threshold: 'p99 < 300ms', abortOnFail: true },
        ]),
        outPath: join(dir, 'abort.json'),
        signal: new AbortController().signal,
      });
      process.stdout.write(`[capacity abortOnFail] ${out.record.finding}\n`);
      expect(validateRunResult(out.result)).toEqual([]);
      const { record } = out;
      const stopped = record.steps.filter((s) => s.stoppedAtMs !== undefined);
      expect(stopped.length).toBeGreaterThan(0);
      for (const step of stopped) {
        expect(step.verdict).toBe('fail');
        expect(step.decidedBy).toBe('p99{workload:checkout} < 300ms');
        expect(step.stoppedAtMs!).toBeLessThan(3000);
        // Its hold ended when the line failed: fewer requests than the full hold's.
        expect(step.requests).toBeLessThan(step.load * 4 * 0.8);
      }
      // Not the search: it went on past the stopped step and found an answer below it.
      expect(out.result.run.status).toBe('completed');
      expect(record.steps.indexOf(stopped[0]!)).toBeLessThan(record.steps.length - 1);
      expect(record.ratePerS).not.toBeNull();
      expect(record.ratePerS!).toBeLessThan(stopped[0]!.load);
    },
  );

  it(
    'searches the users of a workload of concurrency, in whole users, beside the other',
    { timeout: 120_000 },
    async () => {
      // 4 workers of 20 ms: checkout's throughput saturates near 180/s (the background takes 20/s of the 200).
      const out = await capacitySession({
        plan: profile({ workload: 'checkout', start: 2, warmUp: '0s', hold: '1s', slo: ['p99 < 100ms'] }, [], {
          phases: [{ duration: '1m', concurrency: 2 }],
        }),
        outPath: join(dir, 'users.json'),
        signal: new AbortController().signal,
      });
      process.stdout.write(`[capacity --workload checkout, users] ${out.record.finding}\n`);
      const { record, result } = out;
      expect(record).toMatchObject({ model: 'closed', workload: 'checkout' });
      expect(record.finding).toMatch(/^checkout: capacity \d+ users \(/);
      expect(record.steps.every((s) => Number.isInteger(s.load))).toBe(true);
      expect(record.concurrency).toBeGreaterThanOrEqual(4);
      expect(record.concurrency).toBeLessThanOrEqual(22);
      expect(Math.abs(record.ratePerS! - HIDDEN) / HIDDEN).toBeLessThanOrEqual(0.15);
      for (const step of record.steps)
        expect(result.byPhase[`${step.phase} background/phase-1`]?.requests).toBeGreaterThan(0);
    },
  );
});
