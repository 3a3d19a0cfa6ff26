import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildPlan, type PlanOverrides } from '../../src/profile/build-plan.ts';
import { concurrencyLoad, parseStages, rateLoad } from '../../src/profile/phase-load.ts';
import { ProfileError } from '../../src/profile/problems.ts';
import type { Profile } from '../../src/profile/profile-schema.ts';
import { selfSignedMaterial } from '../../src/server/tls.ts';
import { useTempDir } from '../support/temp-dir.ts';

const dir = useTempDir('rpcload-plan-');
const source = join(dir, 'my-profile.json');
writeFileSync(
  join(dir, 'secrets.json'),
  JSON.stringify({ 'client-2': 'from-file-2', b: 'from-file-b', 'client-9': 'unused' }),
);
// A CA file must hold a certificate that parses, not just its BEGIN line.
writeFileSync(join(dir, 'ca.pem'), (await selfSignedMaterial()).cert);
writeFileSync(join(dir, 'not-a-ca.pem'), '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');

const minimal: Profile = { scenarios: [{ steps: [{ method: 'ping' }] }], phases: [{ duration: '30s', rate: 10 }] };
const plan = (profile: Partial<Profile> = {}, overrides?: PlanOverrides) =>
  buildPlan({ ...minimal, ...profile }, { source, overrides });

describe('buildPlan: defaults', () => {
  it('resolves every default of a minimal profile', () => {
    const { clients, seed, ...rest } = plan();
    expect(rest).toEqual({
      name: 'my-profile',
      source,
      target: null,
      replicas: [],
      replicaAffinity: 'request',
      embeddedServer: {
        limit: 100,
        windowMs: 10_000,
        algorithm: 'fixed',
        tokenMethod: 'auth.token',
        tokenTtlS: 3600,
        tokenResponse: 'envelope',
        payloadLimitBytes: 100_000,
        itemCount: 1000,
        pageSize: 100,
        cursorTtlMs: 60_000,
        workLatency: { p50Ms: 20, p99Ms: 200 },
        flakyRate: 0.1,
        brokenEnvelopeRate: 0.2,
        chaosRate: 0.1,
        addedLatencyMs: 0,
        faults: [],
        tls: false,
        http2: false,
        seed,
      },
      auth: {
        tokenMethod: 'auth.token',
        clientAuth: 'post',
        assertionAlg: null,
        scope: null,
        extraFields: {},
        refreshMarginS: 30,
      },
      scenarios: [
        {
          name: 'scenario-1',
          weight: 1,
          steps: [
            {
              method: 'ping',
              body: expect.objectContaining({ source: {}, variability: 'static' }) as unknown,
              paginate: null,
              think: { kind: 'fixed', ms: 0 },
              save: [],
              expect: null,
              onFail: 'stop',
              tags: {},
            },
          ],
        },
      ],
      // No workloads in the profile: one, "default", of the top-level phases, every client and scenario.
      workloads: [
        {
          name: 'default',
          clients: Array.from({ length: 10 }, (_, index) => ({ index, weight: 1 })),
          scenarios: [{ index: 0, weight: 1 }],
          startAfterMs: 0,
          phases: [0],
        },
      ],
      phases: [
        {
          name: 'phase-1',
          workload: 0,
          durationMs: 30_000,
          load: { kind: 'rate', fromPerS: 10, toPerS: 10 },
          arrivals: 'uniform',
        },
      ],
      setup: null,
      teardown: null,
      rateLimit: { limit: 100, windowMs: 10_000, policy: 'honour' },
      thresholds: [],
      http: {
        connections: 64,
        pipelining: 1,
        version: '1.1',
        maxConcurrentStreams: 100,
        connectTimeoutMs: 10_000,
        headersTimeoutMs: 10_000,
        bodyTimeoutMs: 10_000,
        idleTimeoutMs: 4000,
        requestTimeoutMs: 30_000,
        bodyCapBytes: 1_048_576,
        maxResponseBytes: 16_777_216,
        maxInFlight: 10_000,
        ca: null,
        insecure: false,
        identity: null,
        preconnect: true,
        warmUp: true,
        client: 'rpcload',
      },
      sign: null,
      trace: { mode: 'always', sampleRatio: 0.01, tracestate: null, baggageRunId: false, runId: null, seed, stream: 0 },
      report: { traceUrl: null },
      checkpointEveryMs: 10_000,
      data: [],
      dataPart: { index: 0, count: 1 },
    });
    expect(clients.map((c) => [c.id, c.weight])).toEqual(Array.from({ length: 10 }, (_, i) => [`client-${i + 1}`, 1]));
    expect(Number.isInteger(seed)).toBe(true);
  });

  it.each([
    // paginate: true → the default page cap
    [{ method: 'items.list', paginate: true }, { paginate: { maxPages: 10 } }],
    // paginate object without a cap
    [{ method: 'items.list', paginate: {} }, { paginate: { maxPages: 10 } }],
    // explicit cap
    [{ method: 'items.list', paginate: { maxPages: 3 } }, { paginate: { maxPages: 3 } }],
    // false → a single request
    [{ method: 'items.list', paginate: false }, { paginate: null }],
    // think time
    [{ method: 'ping', think: '1.5s' }, { think: { kind: 'fixed', ms: 1500 } }],
  ])('step %j → %j', (step, expected) => {
    expect(plan({ scenarios: [{ steps: [step] }] }).scenarios[0]!.steps[0]).toMatchObject(expected);
  });

  it.each([
    ['rpcload', 'rpcload'],
    ['fast', 'rpcload'], // the former name of rpcload's own clients
    ['undici', 'undici'],
  ] as const)('http.client %s → %s', (client, expected) => {
    expect(plan({ http: { client } }).http.client).toBe(expected);
    expect(plan({}, { httpClient: expected }).http.client).toBe(expected);
  });

  it('takes the embedded server’s limit and window from rateLimit unless the server sets its own', () => {
    expect(plan({ rateLimit: { limit: 20, window: '2s' } }).embeddedServer).toMatchObject({
      limit: 20,
      windowMs: 2000,
    });
    expect(plan({ rateLimit: { limit: 20 }, server: { limit: 30, window: '1m' } }).embeddedServer).toMatchObject({
      limit: 30,
      windowMs: 60_000,
    });
  });

  it('uses the profile’s name and seed when given, and reads a CA file relative to the profile', () => {
    const p = plan({ name: 'named', seed: 7, http: { ca: 'ca.pem' } });
    expect([p.name, p.seed, p.embeddedServer.seed]).toEqual(['named', 7, 7]);
    expect(p.http.ca).toContain('-----BEGIN CERTIFICATE-----');
  });

  it('refuses a CA file whose certificate does not parse, or that holds none', () => {
    expect(() => plan({ http: { ca: 'not-a-ca.pem' } })).toThrow(
      /\/http\/ca: .*"not-a-ca\.pem": certificate 1 of 1 is not a valid PEM certificate/,
    );
    expect(() => plan({ http: { ca: 'secrets.json' } })).toThrow(
      /\/http\/ca: .*"secrets\.json": not a PEM certificate/,
    );
  });

  it('parses thresholds into plain records', () => {
    const thresholds = plan({ thresholds: ['p99 < 250ms', 'error_rate < 1%'] }).thresholds;
    expect(thresholds).toEqual([
      {
        expr: 'p99 < 250ms',
        selector: [],
        selectorKey: '',
        metric: { kind: 'latency', source: 'latencyMs', stat: 'p99' },
        op: '<',
        limit: 250,
        unit: 'ms',
        abortOnFail: false,
        delayAbortEvalMs: 0,
      },
      {
        expr: 'error_rate < 1%',
        selector: [],
        selectorKey: '',
        metric: { kind: 'share', of: 'error' },
        op: '<',
        limit: 1,
        unit: '%',
        abortOnFail: false,
        delayAbortEvalMs: 0,
      },
    ]);
  });

  it('is plain data: a structured clone (what a worker thread receives) equals the plan', () => {
    const original = plan({
      thresholds: ['p99 < 250ms'],
      scenarios: [{ steps: [{ method: 'echo', args: { who: '{{client.id}}' } }] }],
    });
    expect(structuredClone(original)).toEqual(original);
  });

  it('freezes the whole plan', () => {
    const p = plan({ thresholds: ['p99 < 1s'] });
    for (const part of [
      p,
      p.phases,
      p.phases[0],
      p.phases[0]!.load,
      p.clients[0],
      p.scenarios[0]!.steps[0]!.body.source,
      p.embeddedServer.faults,
      p.thresholds[0],
    ]) {
      expect(Object.isFrozen(part)).toBe(true);
    }
    expect(() => ((p.phases[0] as unknown as { durationMs: number }).durationMs = 1)).toThrow(TypeError);
  });

  it('interpolates ${VAR} when given an environment (a profile made in code)', () => {
    const p = buildPlan(
      { ...minimal, target: '${API}', clients: { count: 1, secret: '${S}' } },
      { source, env: { API: 'https://api.example.com/', S: 'shh-env' } },
    );
    expect([p.target, p.clients[0]!.secret]).toEqual(['https://api.example.com', 'shh-env']);
    expect(() => buildPlan({ ...minimal, target: '${API}' }, { source, env: {} })).toThrow(
      /\/target: expected environment variable API/,
    );
  });
});

describe('buildPlan: clients and secrets', () => {
  const external = 'https://api.example.com';

  it('expands a pattern from start, with weights for particular ids', () => {
    const p = plan({ clients: { pattern: 'user-{n}-x', count: 3, start: 0, weights: { 'user-1-x': 10 } } });
    expect(p.clients.map((c) => [c.id, c.weight])).toEqual([
      ['user-0-x', 1],
      ['user-1-x', 10],
      ['user-2-x', 1],
    ]);
  });

  it('prefers a client’s own secret, then the secrets file, then the pattern’s shared secret', () => {
    const listed = plan({
      target: external,
      clients: {
        list: [
          { id: 'a', secret: 'own-a' },
          { id: 'b', secret: '' },
        ],
        secretsFile: 'secrets.json',
      },
    });
    expect(listed.clients.map((c) => [c.id, c.secret, c.weight])).toEqual([
      ['a', 'own-a', 1],
      ['b', 'from-file-b', 1],
    ]);
    const pattern = plan({ target: external, clients: { count: 3, secret: 'shared', secretsFile: 'secrets.json' } });
    expect(pattern.clients.map((c) => c.secret)).toEqual(['shared', 'from-file-2', 'shared']);
  });

  it('gives clients of the embedded server distinct random secrets per run', () => {
    const first = plan({ clients: { count: 3 } }).clients.map((c) => c.secret);
    const second = plan({ clients: { count: 3 } }).clients.map((c) => c.secret);
    expect(new Set([...first, ...second]).size).toBe(6);
    for (const secret of first) expect(secret.length).toBeGreaterThanOrEqual(20);
  });

  it('keeps given secrets for the embedded server too', () => {
    expect(plan({ clients: { list: [{ id: 'a', secret: 'mine', weight: 2 }] } }).clients).toEqual([
      { id: 'a', secret: 'mine', weight: 2, tls: null, assertionKey: null, signingSecret: 'mine' },
    ]);
  });
});

describe('buildPlan: overrides', () => {
  const twoPhases: Partial<Profile> = {
    phases: [
      { name: 'ramp', duration: '10s', rate: { from: 1, to: 20 } },
      { name: 'steady', duration: '20s', rate: 20 },
    ],
  };
  const onePhase: Partial<Profile> = { phases: [{ name: 'only', duration: '30s', rate: { from: 5, to: 50 } }] };

  it.each([
    // --rate replaces all phases with one, lasting the profile's total
    [
      twoPhases,
      { load: rateLoad(50) },
      [{ name: 'cli', durationMs: 30_000, load: { kind: 'rate', fromPerS: 50, toPerS: 50 }, arrivals: 'uniform' }],
    ],
    // --rate with --duration
    [
      twoPhases,
      { load: rateLoad(50), durationMs: 5000 },
      [{ name: 'cli', durationMs: 5000, load: { kind: 'rate', fromPerS: 50, toPerS: 50 }, arrivals: 'uniform' }],
    ],
    // --concurrency likewise
    [
      twoPhases,
      { load: concurrencyLoad(8), durationMs: 60_000 },
      [{ name: 'cli', durationMs: 60_000, load: { kind: 'concurrency', vus: 8 }, arrivals: 'uniform' }],
    ],
    // --duration alone re-times a single phase, keeping its load (a ramp stays a ramp)
    [
      onePhase,
      { durationMs: 90_000 },
      [{ name: 'only', durationMs: 90_000, load: { kind: 'rate', fromPerS: 5, toPerS: 50 }, arrivals: 'uniform' }],
    ],
    // --duration alone with several phases scales them, keeping their proportions and loads
    [
      twoPhases,
      { durationMs: 6000 },
      [
        { name: 'ramp', durationMs: 2000, load: { kind: 'rate', fromPerS: 1, toPerS: 20 }, arrivals: 'uniform' },
        { name: 'steady', durationMs: 4000, load: { kind: 'rate', fromPerS: 20, toPerS: 20 }, arrivals: 'uniform' },
      ],
    ],
    // no load flags: the profile's phases
    [
      onePhase,
      {},
      [{ name: 'only', durationMs: 30_000, load: { kind: 'rate', fromPerS: 5, toPerS: 50 }, arrivals: 'uniform' }],
    ],
  ])('%#: %j', (profile, overrides, phases) => {
    // (one workload: every phase is its)
    expect(plan(profile, overrides).phases).toEqual(phases.map((phase) => ({ ...phase, workload: 0 })));
  });

  it.each([
    // a load flag's values are checked here, as a file's loads are (its parser only reads numbers)
    [
      twoPhases,
      { load: rateLoad(0) },
      '--rate: expected a rate above 0 at some point (a run that sends nothing measures nothing)',
    ],
    [
      twoPhases,
      { load: rateLoad(-1, 5) },
      '--rate: expected arrivals per second of 0 or more (N, or FROM:TO for a ramp), found "-1:5"',
    ],
    [twoPhases, { load: rateLoad(Number.POSITIVE_INFINITY) }, '--rate: expected arrivals per second of 0 or more'],
    [
      twoPhases,
      { load: concurrencyLoad(1.5) },
      '--concurrency: expected a positive whole number of virtual users, found 1.5',
    ],
    [
      twoPhases,
      { stages: parseStages('10s:5,5s:-3')! },
      '--stages: expected arrivals per second of 0 or more (N, or FROM:TO for a ramp), found "5:-3"',
    ],
    [twoPhases, { stages: parseStages('10s:0,5s:0')! }, '--stages: expected a rate above 0 at some point'],
    [
      twoPhases,
      { stages: parseStages('0s:5')! },
      '--stages: expected DURATION:RATE[,DURATION:RATE…] with durations above 0',
    ],
    // nonsense values of other flags
    [twoPhases, { clients: 1.5 }, '--clients: expected a positive integer, found 1.5'],
    // more clients than listed
    [
      { clients: { list: [{ id: 'a' }, { id: 'b' }] } },
      { clients: 3 },
      '--clients: expected at most 2 (the profile lists 2 clients), found 3',
    ],
    // a bad --target
    [{}, { target: 'localhost:8080' }, '--target: expected an http:// or https:// URL, found "localhost:8080"'],
  ])('%#: %j is a flag problem', (profile, overrides, message) => {
    expect(() => plan(profile, overrides)).toThrow(ProfileError);
    expect(() => plan(profile, overrides)).toThrow(message);
  });

  it('refuses a profile whose phases all send nothing, but keeps an idle phase between others', () => {
    const idle = {
      phases: [
        { duration: '10s', rate: 0 },
        { duration: '5s', rate: { from: 0, to: 0 } },
      ],
    };
    expect(() => plan(idle)).toThrow(`${source}: /phases: expected a rate above 0 at some point`);
    const pause = {
      phases: [
        { duration: '10s', rate: 5 },
        { name: 'pause', duration: '5s', rate: 0 },
      ],
    };
    expect(plan(pause).phases[1]).toEqual({
      name: 'pause',
      workload: 0,
      durationMs: 5000,
      load: { kind: 'rate', fromPerS: 0, toPerS: 0 },
      arrivals: 'uniform',
    });
  });

  it('--clients N makes a pattern of N clients, or keeps the first N listed', () => {
    expect(plan({ clients: { count: 20 } }, { clients: 3 }).clients.map((c) => c.id)).toEqual([
      'client-1',
      'client-2',
      'client-3',
    ]);
    expect(plan({ clients: { count: 2 } }, { clients: 4 }).clients).toHaveLength(4);
    expect(
      plan({ clients: { list: [{ id: 'a' }, { id: 'b' }, { id: 'c' }] } }, { clients: 2 }).clients.map((c) => c.id),
    ).toEqual(['a', 'b']);
    // weights of ids dropped by --clients are not an error
    expect(
      plan({ clients: { count: 20, weights: { 'client-20': 5 } } }, { clients: 2 }).clients.map((c) => c.weight),
    ).toEqual([1, 1]);
  });

  it('--target makes the target external, which then needs secrets', () => {
    expect(plan({ clients: { count: 2, secret: 'shh' } }, { target: 'http://127.0.0.1:9/' }).target).toBe(
      'http://127.0.0.1:9',
    );
    expect(() => plan({ clients: { count: 2 } }, { target: 'http://127.0.0.1:9' })).toThrow(
      /\/clients\/secret: expected a secret/,
    );
  });

  it('reports flag problems with the profile’s own problems, flags first', () => {
    const error = (() => {
      try {
        plan({ ...twoPhases, thresholds: ['nope'] }, { load: concurrencyLoad(0) });
      } catch (err) {
        return err as ProfileError;
      }
      throw new Error('expected a ProfileError');
    })();
    expect(error.code).toBe('bad_profile');
    expect(error.exitCode).toBe(2);
    expect(error.message.split('\n').map((line) => line.split(':')[0])).toEqual(['--concurrency', source]);
  });
});
