/**
 * What a capacity search of one workload among several settles before anything runs: which
 * workload, in which unit, from which start, its SLO lines scoped to it, and each step's plan (the
 * searched workload at the step's load, the others beside it as configured, cut to the step).
 */
import { describe, expect, it } from 'vitest';
import { RpcloadError } from '../../src/errors.ts';
import type { Plan } from '../../src/profile/plan.ts';
import { ProfileError } from '../../src/profile/problems.ts';
import { parseThreshold } from '../../src/profile/thresholds.ts';
import { capacityFinding } from '../../src/session/capacity/capacity-finding.ts';
import { searchSetup } from '../../src/session/capacity/searched-workload.ts';
import { holdLine, scopedLine } from '../../src/session/capacity/step-slo.ts';
import { stepPlan } from '../../src/session/capacity/step-plan.ts';
import { testPlan } from '../support/load-run.ts';

const SCENARIOS = [
  { name: 'buy', steps: [{ method: 'cart.add' }, { method: 'cart.pay' }] },
  { name: 'look', steps: [{ method: 'ping' }] },
];

const WORKLOADS = [
  { name: 'checkout', scenarios: ['buy'], phases: [{ duration: '1s', rate: 5, arrivals: 'poisson' }] },
  {
    name: 'browse',
    scenarios: ['look'],
    phases: [
      { duration: '2s', rate: 10 },
      { duration: '1m', rate: 30 },
    ],
    startAfter: '1s',
  },
  { name: 'flow', scenarios: ['look'], phases: [{ duration: '1m', concurrency: 3 }] },
  { name: 'once', scenarios: ['look'], iterations: 2, maxDuration: '1m' },
  { name: 'recorded', replay: { file: 'rec.jsonl', speed: 2 } },
];

const shop = (capacity: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Plan =>
  testPlan({ scenarios: SCENARIOS, workloads: WORKLOADS, capacity, ...extra }, 'http://127.0.0.1:1');

const failure = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    if (err instanceof RpcloadError || err instanceof ProfileError) return err.message;
    throw err;
  }
  return '(no error)';
};

describe('the workload a capacity search scales', () => {
  it.each<[string, Record<string, unknown>, { model: string; start: number; unit: string; rateNoun: string }]>([
    [
      'a rate: open, from its own 5/s (a factor of 1); its arrivals are iterations of two steps',
      { workload: 'checkout' },
      { model: 'open', start: 5, unit: 'open', rateNoun: 'iterations' },
    ],
    [
      'a rate of one-step iterations, from --start: requests',
      { workload: 'browse', start: 40 },
      { model: 'open', start: 40, unit: 'open', rateNoun: 'requests' },
    ],
    [
      'users: closed, from its own 3 users',
      { workload: 'flow' },
      { model: 'closed', start: 3, unit: 'closed', rateNoun: 'requests' },
    ],
    [
      'a replay: its speed, from 1×',
      { workload: 'recorded' },
      { model: 'open', start: 1, unit: 'replay', rateNoun: 'requests' },
    ],
  ])('%s', (_, capacity, want) => {
    const { searched, cap } = searchSetup(shop(capacity));
    expect({ model: cap.model, start: cap.start, unit: searched.unit, rateNoun: searched.rateNoun }).toEqual(want);
    expect(searched).toMatchObject({ name: capacity.workload, beside: true, named: true });
  });

  it.each<[string, Plan, string]>([
    ['several workloads, none named', shop(), 'the profile has 5 workloads (checkout, browse, flow, once, recorded)'],
    ['a name the profile lacks', shop({ workload: 'nope' }), '/capacity/workload'],
    ['a workload of iterations', shop({ workload: 'once' }), 'workload once runs iterations'],
    ['users asked of a rate', shop({ workload: 'browse', model: 'closed' }), 'workload browse runs a rate'],
  ])('refuses %s in one line', (_, plan, text) => {
    const message = failure(() => searchSetup(plan));
    expect(message).toContain(text);
    expect(message.split('\n')).toHaveLength(1);
  });

  it('a profile of one workload is searched as before: not named, its SLO lines as written', () => {
    const plan = testPlan(
      { scenarios: SCENARIOS.slice(1), phases: [{ duration: '1s', rate: 1 }], thresholds: ['p99 < 250ms'] },
      'http://127.0.0.1:1',
    );
    const { searched, cap, slo } = searchSetup(plan);
    expect(searched).toMatchObject({ name: 'default', beside: false, named: false, unit: 'open' });
    expect(cap.start).toBe(20);
    expect(slo.map((l) => l.expr)).toEqual(['p99 < 250ms']);
  });
});

describe("the search's SLO lines", () => {
  it.each([
    ['p99 < 250ms', 'p99{workload:checkout} < 250ms'],
    ['ping:p99 < 250ms', 'p99{method:ping,workload:checkout} < 250ms'],
    ['error_rate{kind:write} < 1%', 'error_rate{kind:write,workload:checkout} < 1%'],
    ['p95{workload:browse} < 1s', 'p95{workload:browse} < 1s'],
  ])('%s is judged as %s', (line, scoped) => {
    expect(scopedLine(parseThreshold(line), 'checkout').expr).toBe(scoped);
  });

  it('a line keeps abortOnFail and its delay when scoped', () => {
    const line = parseThreshold('p99 < 1s', { abortOnFail: true, delayAbortEvalMs: 2000 });
    expect(scopedLine(line, 'checkout')).toMatchObject({ abortOnFail: true, delayAbortEvalMs: 2000 });
  });

  it.each([
    ['p99{workload:checkout} < 1s', 'phase:step-02,workload:checkout'],
    ['p99{workload:browse} < 1s', 'workload:browse'],
  ])('%s is judged in step-02 on %s', (line, key) => {
    expect(holdLine(parseThreshold(line), 'step-02', 'checkout').selectorKey).toBe(key);
  });
});

describe('a step of a search of one workload', () => {
  const plan = shop({ workload: 'browse', warmUp: '1s' }, { thresholds: ['p99 < 300ms'] });
  const setup = searchSetup(plan);
  const step = stepPlan(plan, setup.cap, setup, 'search', 2, 60, 2000);

  it('runs the searched workload at the step load, from the step start, with a warm-up', () => {
    expect(step.phases.map((p) => [p.name, p.load])).toEqual([
      ['step-02 warm-up', { kind: 'rate', fromPerS: 60, toPerS: 60 }],
      ['step-02', { kind: 'rate', fromPerS: 60, toPerS: 60 }],
    ]);
    const browse = step.plan.workloads.find((w) => w.name === 'browse')!;
    expect(browse.startAfterMs).toBe(0);
  });

  it('runs the others beside it as configured, cut to the step, each phase named after the step', () => {
    const byName = Object.fromEntries(step.plan.phases.map((p) => [p.name, p]));
    expect(byName['step-02 checkout/phase-1']).toMatchObject({
      durationMs: 1000,
      load: { fromPerS: 5 },
      arrivals: 'poisson',
    });
    expect(byName['step-02 flow/phase-1']).toMatchObject({ durationMs: 3000, load: { kind: 'concurrency', vus: 3 } });
    // Iterations run as configured too (capped by the step's length by their workload's own end).
    expect(step.plan.workloads.map((w) => w.name)).toEqual(['checkout', 'browse', 'flow', 'once', 'recorded']);
  });

  it('judges its SLO lines on the hold, and keeps the searched workload apart', () => {
    expect(step.plan.thresholds.map((t) => t.selectorKey)).toEqual([
      'phase:step-02,workload:browse',
      'workload:browse',
    ]);
    expect(step.workloadSelection).toBe('workload:browse');
  });
});

describe('the answer of a search of one workload', () => {
  const answer = {
    answer: 46,
    atLeast: false,
    bracket: [46, 48] as [number, number],
    limitedBy: 'latency' as const,
    why: null,
    decisive: null,
    confirmed: false,
  };
  it.each([
    ['iterations', 'checkout: capacity 46 iterations/s (bracket 46/s – 48/s'],
    ['requests', 'checkout: capacity 46 requests/s (bracket 46/s – 48/s'],
  ] as const)('names it and its %s', (rateNoun, head) => {
    const text = capacityFinding({
      searched: 'open',
      answer,
      ratePerS: 46,
      steps: [],
      quotaText: null,
      workload: { name: 'checkout', rateNoun },
    });
    expect(text.startsWith(head)).toBe(true);
  });

  it('names a replay workload and says the speed and its calls per second', () => {
    const speed = { ...answer, answer: 3.2, bracket: [3.2, 3.4] as [number, number] };
    const text = capacityFinding({
      searched: 'replay',
      answer: speed,
      ratePerS: 160,
      steps: [],
      quotaText: null,
      workload: { name: 'recorded', rateNoun: 'requests' },
    });
    expect(text.startsWith('recorded: capacity 3.2× the recording (160 calls/s; bracket 3.2×–3.4×)')).toBe(true);
  });
});
