/**
 * Workloads in the profile: each resolves to its own clients, scenarios and load; a profile without
 * them is one workload, "default"; every mistake is one problem with its JSON path, naming the
 * values that would have been right.
 */
import { describe, expect, it } from 'vitest';
import { resolvePlan, type PlanOverrides } from '../../src/profile/build-plan.ts';
import type { Plan } from '../../src/profile/plan.ts';

const SCENARIOS = [
  { name: 'ping', steps: [{ method: 'ping' }] },
  {
    name: 'order-flow',
    steps: [
      { method: 'orders.create', save: { orderId: 'id' }, tags: { kind: 'write' } },
      { method: 'orders.get', args: { id: '{{vars.orderId}}' } },
    ],
  },
];

const profile = (fields: Record<string, unknown>): Record<string, unknown> => ({
  target: 'http://127.0.0.1:9',
  clients: { pattern: 'client-{n}', count: 2, secret: 's3cret' },
  scenarios: SCENARIOS,
  ...fields,
});

const WORKLOADS = [
  {
    name: 'browse',
    clients: { pattern: 'web-{n}', count: 3 },
    scenarios: ['ping'],
    arrivals: 'poisson',
    phases: [{ duration: '8s', rate: 40 }],
  },
  {
    name: 'orders',
    clients: ['client-2', 'web-1'],
    scenarios: { 'order-flow': 3, ping: 1 },
    phases: [{ duration: '8s', concurrency: 2 }],
  },
  { name: 'once', clients: { pattern: 'user-{n}', count: 2 }, scenarios: ['ping'], iterations: 2, startAfter: '1s' },
];

function planOf(fields: Record<string, unknown>, overrides: PlanOverrides = {}): Plan {
  const { plan, problems } = resolvePlan(profile(fields), { source: 'p.json', overrides });
  expect(problems.map((p) => `${p.path}: ${p.message}`)).toEqual([]);
  return plan!;
}

function problemsOf(fields: Record<string, unknown>, overrides: PlanOverrides = {}): string[] {
  return resolvePlan(profile(fields), { source: 'p.json', overrides }).problems.map((p) => `${p.path}: ${p.message}`);
}

describe('workloads', () => {
  it('resolve to their own clients, scenarios and load; a client in two workloads is one identity', () => {
    const plan = planOf({ workloads: WORKLOADS });
    expect(plan.clients.map((c) => c.id)).toEqual([
      'client-1',
      'client-2',
      'web-1',
      'web-2',
      'web-3',
      'user-1',
      'user-2',
    ]);
    // web-{n} inherits the top-level secret
    expect(plan.clients.find((c) => c.id === 'web-2')!.secret).toBe('s3cret');
    const [browse, orders, once] = plan.workloads;
    expect(browse!.clients.map((c) => plan.clients[c.index]!.id)).toEqual(['web-1', 'web-2', 'web-3']);
    expect(orders!.clients.map((c) => plan.clients[c.index]!.id)).toEqual(['client-2', 'web-1']);
    expect(orders!.scenarios).toEqual([
      { index: 1, weight: 3 },
      { index: 0, weight: 1 },
    ]);
    expect(once!.startAfterMs).toBe(1000);
    // Phases in one list, named after their workload; each knows its workload.
    expect(plan.phases.map((p) => [p.name, p.workload, p.load.kind, p.arrivals])).toEqual([
      ['browse/phase-1', 0, 'rate', 'poisson'],
      ['orders/phase-1', 1, 'concurrency', 'uniform'],
      ['once/iterations', 2, 'iterations', 'uniform'],
    ]);
    expect(once!.phases).toEqual([2]);
    expect(plan.phases[2]!.load).toEqual({ kind: 'iterations', perClient: 2 });
    expect(plan.phases[2]!.durationMs).toBe(600_000); // maxDuration's default: the most it may last
  });

  it('a profile without workloads is one workload, "default", of its phases, every client and scenario', () => {
    const plan = planOf({ phases: [{ name: 'steady', duration: '2s', rate: 5 }] });
    expect(plan.workloads).toEqual([
      {
        name: 'default',
        clients: [
          { index: 0, weight: 1 },
          { index: 1, weight: 1 },
        ],
        scenarios: [
          { index: 0, weight: 1 },
          { index: 1, weight: 1 },
        ],
        startAfterMs: 0,
        phases: [0],
      },
    ]);
    expect(plan.phases[0]!.name).toBe('steady'); // one workload: no prefix
  });

  it('the load flags change the one workload, or the one --workload names', () => {
    expect(
      planOf({ workloads: [WORKLOADS[0]] }, { load: { kind: 'rate', fromPerS: 7, toPerS: 7 } }).phases[0]!.load,
    ).toEqual({
      kind: 'rate',
      fromPerS: 7,
      toPerS: 7,
    });
    const plan = planOf({ workloads: WORKLOADS }, { workload: 'orders', durationMs: 3000 });
    expect(plan.phases.map((p) => p.durationMs)).toEqual([8000, 3000, 600_000]);
  });

  it.each<[string, Record<string, unknown>, PlanOverrides, string[]]>([
    // two loads in one workload
    [
      'phases and iterations',
      { workloads: [{ name: 'w', iterations: 1, phases: [{ duration: '1s', rate: 1 }] }] },
      {},
      [
        '/workloads/0: expected exactly one of "phases", "iterations" and "replay" (its load), found phases and iterations',
      ],
    ],
    // no load at all
    [
      'no load',
      { workloads: [{ name: 'w' }] },
      {},
      ['/workloads/0: expected exactly one of "phases", "iterations" and "replay" (its load), found none'],
    ],
    // a scenario the profile lacks
    [
      'an unknown scenario',
      { workloads: [{ name: 'w', scenarios: ['pong'], phases: [{ duration: '1s', rate: 1 }] }] },
      {},
      ['/workloads/0/scenarios/0: expected a scenario of the profile (ping, order-flow), found "pong"'],
    ],
    // a client ID nobody configures
    [
      'an unknown client',
      { workloads: [{ name: 'w', clients: ['client-9'], phases: [{ duration: '1s', rate: 1 }] }] },
      {},
      [
        '/workloads/0/clients/0: expected a configured client ID (client-1, client-2) or a clients block, found "client-9"',
      ],
    ],
    // two workloads of one name
    [
      'a name twice',
      {
        workloads: [
          { name: 'w', phases: [{ duration: '1s', rate: 1 }] },
          { name: 'w', phases: [{ duration: '1s', rate: 1 }] },
        ],
      },
      {},
      ['/workloads/1/name: expected a unique workload name (workload 1 is also "w"), found "w"'],
    ],
    // the top-level load beside workloads
    [
      'top-level phases beside workloads',
      { phases: [{ duration: '1s', rate: 1 }], workloads: [{ name: 'w', phases: [{ duration: '1s', rate: 1 }] }] },
      {},
      [
        '/phases: expected phases inside a workload when the profile has "workloads" (each workload has its own load), found it at the top level',
      ],
    ],
    // a load flag with several workloads and no --workload
    [
      '--rate without --workload',
      { workloads: WORKLOADS },
      { load: { kind: 'rate', fromPerS: 5, toPerS: 5 } },
      ['--rate: expected --workload NAME beside it (the profile has 3 workloads: browse, orders, once), found none'],
    ],
    [
      '--workload naming nothing',
      { workloads: WORKLOADS },
      { workload: 'checkout', load: { kind: 'rate', fromPerS: 5, toPerS: 5 } },
      ['--workload: expected a workload of the profile (browse, orders, once), found "checkout"'],
    ],
    // a rate flag on a workload of iterations
    [
      '--rate on iterations',
      { workloads: WORKLOADS },
      { workload: 'once', load: { kind: 'rate', fromPerS: 5, toPerS: 5 } },
      ['--rate: expected only --duration (its longest run) for workload "once", which runs 2 iterations per client'],
    ],
  ])('%s: one problem with its path', (_name, fields, overrides, expected) => {
    expect(problemsOf(fields, overrides)).toEqual(expected);
  });
});

describe('thresholds with selectors', () => {
  it('parse into selections of the plan', () => {
    const plan = planOf({
      workloads: WORKLOADS,
      thresholds: [
        'p99{workload:browse} < 2s',
        'p95{kind:write} < 500ms',
        'orders.create:error_rate < 1%',
        { threshold: 'error_rate{workload:orders} < 1%', abortOnFail: true, delayAbortEval: '2s' },
      ],
    });
    expect(plan.thresholds.map((t) => [t.selectorKey, t.abortOnFail, t.delayAbortEvalMs])).toEqual([
      ['workload:browse', false, 0],
      ['kind:write', false, 0],
      ['method:orders.create', false, 0],
      ['workload:orders', true, 2000],
    ]);
  });

  it.each<[string, unknown, string]>([
    // a value the plan does not have: the known ones are named
    [
      'p99{workload:checkout} < 2s',
      null,
      'expected a workload the plan has (browse, orders, once), found "checkout" in "p99{workload:checkout} < 2s"',
    ],
    [
      'p99{method:orders.cancel} < 2s',
      null,
      'expected a method the plan has (ping, orders.create, orders.get), found "orders.cancel"',
    ],
    ['p99{kind:read} < 2s', null, 'expected a value of tag "kind" the plan has (write), found "read"'],
    [
      'p99{team:a} < 2s',
      null,
      'expected a selector key (workload, scenario, phase, method, client or a step tag: kind), found "team"',
    ],
    // values that exist but never meet: browse never runs order-flow
    ['p99{workload:browse,kind:write} < 2s', null, 'no request of the plan has all of kind:write,workload:browse'],
    // a client the workload does not have
    [
      'p99{workload:browse,client:client-1} < 2s',
      null,
      'no request of the plan has all of client:client-1,workload:browse',
    ],
  ])('%j is a problem naming what is known', (threshold, _unused, message) => {
    const problems = problemsOf({ workloads: WORKLOADS, thresholds: [threshold] });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('/thresholds/0: ');
    expect(problems[0]).toContain(message);
  });

  it('delayAbortEval needs abortOnFail', () => {
    expect(
      problemsOf({
        phases: [{ duration: '1s', rate: 1 }],
        thresholds: [{ threshold: 'p99 < 1s', delayAbortEval: '2s' }],
      }),
    ).toEqual([
      '/thresholds/0/delayAbortEval: expected "abortOnFail": true beside it (only a live threshold is delayed), found "2s"',
    ]);
  });
});

describe('setup and teardown', () => {
  const setup = { client: 'admin-1', steps: [{ method: 'orders.create', save: { fixtureId: 'id' } }] };
  const teardown = { client: 'admin-1', steps: [{ method: 'orders.delete', args: { id: '{{setup.fixtureId}}' } }] };

  it('resolve their steps, client (a new ID gets the shared secret) and saves', () => {
    const plan = planOf({
      phases: [{ duration: '1s', rate: 1 }],
      scenarios: [{ name: 'ping', steps: [{ method: 'ping', args: { fixture: '{{setup.fixtureId}}' } }] }],
      setup,
      teardown,
    });
    expect(plan.clients.map((c) => c.id)).toEqual(['client-1', 'client-2', 'admin-1']);
    expect(plan.setup).toMatchObject({ client: 2, saves: ['fixtureId'], timeoutMs: 30_000 });
    expect(plan.teardown).toMatchObject({ client: 2, saves: [] });
    // The load's workload does not send by the setup-only client.
    expect(plan.workloads[0]!.clients.map((c) => c.index)).toEqual([0, 1]);
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      'a setup value nobody saves',
      { scenarios: [{ name: 'ping', steps: [{ method: 'ping', args: { f: '{{setup.fixture}}' } }] }], setup },
      "/scenarios/0/steps/0/args/f: {{setup.fixture}} is never saved by the profile's setup steps; saved: fixtureId",
    ],
    [
      'a setup value in a setup step',
      {
        setup: {
          steps: [
            { method: 'a', save: { x: 'id' } },
            { method: 'b', args: { x: '{{setup.x}}' } },
          ],
        },
      },
      '/setup/steps/1/args/x: {{setup.x}} in a setup step: setup values exist once setup is over (use {{vars.x}} within setup)',
    ],
    [
      'a new client without a shared secret',
      { clients: { list: [{ id: 'a', secret: 's' }] }, setup: { client: 'admin-1', steps: [{ method: 'a' }] } },
      '/setup/client: expected a configured client ID, or a top-level clients block with a shared "secret" (a new ID gets that secret), found "admin-1"',
    ],
  ])('%s: one problem', (_name, fields, expected) => {
    expect(problemsOf({ phases: [{ duration: '1s', rate: 1 }], ...fields })).toEqual([expected]);
  });
});
