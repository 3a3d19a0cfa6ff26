import { describe, expect, it } from 'vitest';
import { clientsFromFlags, expandClientPattern, parseClientFlag } from '../../src/profile/client-flags.ts';
import { buildInlineProfile, inlinePlan, parseMethodFlag } from '../../src/profile/inline-profile.ts';
import { parseStages, rateLoad } from '../../src/profile/phase-load.ts';
import { resolveVerifyConfig } from '../../src/verify/config.ts';

process.env.RPCLOAD_TEST_SECRET = 'from-the-environment';

describe('--method NAME[:JSON_ARGS][@WEIGHT]', () => {
  it.each([
    ['ping', { method: 'ping', args: undefined, weight: undefined }],
    ['ping@3', { method: 'ping', args: undefined, weight: 3 }],
    ['search:{"q":"x"}', { method: 'search', args: { q: 'x' }, weight: undefined }],
    ['search:{"q":"x"}@2.5', { method: 'search', args: { q: 'x' }, weight: 2.5 }],
    // an @ inside the JSON belongs to it
    ['mail:{"to":"a@1"}', { method: 'mail', args: { to: 'a@1' }, weight: undefined }],
    ['items.list', { method: 'items.list', args: undefined, weight: undefined }],
  ])('%s', (value, parsed) => {
    expect(parseMethodFlag(value)).toEqual(parsed);
  });

  it.each([
    ['', /--method: expected NAME\[:JSON_ARGS\]\[@WEIGHT\] with a method name/],
    ['search:{"q":', /--method: expected a JSON object after "search:"/],
    ['search:[1]', /a JSON object after "search:"/],
    ['ping@0', /a weight greater than 0/],
    ['ping@x', /expected NAME\[:JSON_ARGS\]\[@WEIGHT\]/],
  ])('rejects %j in one line', (value, message) => {
    expect(() => parseMethodFlag(value)).toThrow(message);
  });
});

describe('client flags', () => {
  it('takes ID:SECRET, secrets with colons, and secrets from --secret-env', () => {
    expect(parseClientFlag('app-1:s:e:c')).toEqual({ id: 'app-1', secret: 's:e:c' });
    expect(parseClientFlag('app-1', 'API_SECRET', { API_SECRET: 'from-env' })).toEqual({
      id: 'app-1',
      secret: 'from-env',
    });
    expect(() => parseClientFlag('app-1', 'API_SECRET', {})).toThrow(
      /--secret-env: expected the environment variable API_SECRET/,
    );
    expect(() => parseClientFlag('only-a-secret')).toThrow(/--client: expected ID:SECRET, found no colon/);
  });

  it('expands a pattern, appending {n} to a bare prefix', () => {
    expect(expandClientPattern('app-{n}-x:pw', 2)).toEqual([
      { id: 'app-1-x', secret: 'pw' },
      { id: 'app-2-x', secret: 'pw' },
    ]);
    expect(expandClientPattern('app-', 2, 'S', { S: 'pw' }).map((c) => c.id)).toEqual(['app-1', 'app-2']);
    expect(() => expandClientPattern(':pw', 2)).toThrow(/--client-pattern: expected PATTERN:SECRET/);
  });

  it('gives verify the same flags: --client-pattern makes its six clients, --secret-env fills the secret', () => {
    const config = resolveVerifyConfig(
      { clientPattern: 'app-{n}', secretEnv: 'RPCLOAD_TEST_SECRET', method: ['ping'] },
      null,
      'http://h',
      null,
    );
    expect(config.clients.map((c) => c.id)).toEqual(['app-1', 'app-2', 'app-3', 'app-4', 'app-5', 'app-6']);
    expect(config.clients.every((c) => c.secret === process.env.RPCLOAD_TEST_SECRET)).toBe(true);
  });

  it('lists --client then the pattern, and refuses an ID given twice', () => {
    expect(clientsFromFlags({ client: ['a:1'], clientPattern: 'b{n}:2' }, 2).map((c) => c.id)).toEqual([
      'a',
      'b1',
      'b2',
    ]);
    expect(() => clientsFromFlags({ client: ['b1:1'], clientPattern: 'b{n}:2' }, 2)).toThrow(/client "b1" given twice/);
  });
});

describe('a profile built from flags', () => {
  it('is a plain profile: one scenario per method, weights, args, paginated walks, clients, auth', () => {
    const profile = buildInlineProfile({
      target: 'https://api.example.com/v1',
      client: ['app-1:pw'],
      method: ['ping@3', 'search:{"q":"{{pick a|b}}"}', 'ping'],
      paginated: ['orders.list:orders'],
      clientAuth: 'basic',
    });
    expect(profile).toEqual({
      name: 'api.example.com',
      target: 'https://api.example.com/v1',
      auth: { clientAuth: 'basic' },
      clients: { list: [{ id: 'app-1', secret: 'pw' }] },
      scenarios: [
        { name: 'ping', weight: 3, steps: [{ method: 'ping' }] },
        { name: 'search', steps: [{ method: 'search', args: { q: '{{pick a|b}}' } }] },
        { name: 'ping-2', steps: [{ method: 'ping' }] },
        { name: 'orders.list', steps: [{ method: 'orders.list', paginate: true }] },
      ],
      phases: [{ name: 'cli', duration: '10s', rate: 5 }],
    });
  });

  it('goes through the same validation as a file, its problems named as the command line', () => {
    expect(() => inlinePlan({ method: ['echo:{"x":"{{nope}}"}'] }, {})).toThrow(
      /^\(command line\): \/scenarios\/0\/steps\/0\/args\/x: /,
    );
    expect(() => inlinePlan({ target: 'https://h', method: ['ping'] }, {})).toThrow(
      /no client to send as: pass --client ID:SECRET/,
    );
    expect(() => inlinePlan({ client: ['a:b'] }, {})).toThrow(/no method to call: pass --method NAME/);
  });

  it('takes the load flags like a file: ramp, stages, -n, duration', () => {
    const flags = { target: 'http://h', client: ['a:b'], method: ['ping'] };
    expect(inlinePlan(flags, {}).phases.map(({ workload: _, ...phase }) => phase)).toEqual([
      { name: 'cli', durationMs: 10_000, load: { kind: 'rate', fromPerS: 5, toPerS: 5 }, arrivals: 'uniform' },
    ]);
    expect(
      inlinePlan(flags, { load: rateLoad(10, 200), durationMs: 60_000 }).phases.map(
        ({ workload: _, ...phase }) => phase,
      ),
    ).toEqual([
      { name: 'cli', durationMs: 60_000, load: { kind: 'rate', fromPerS: 10, toPerS: 200 }, arrivals: 'uniform' },
    ]);
    expect(
      inlinePlan(flags, {
        stages: parseStages('30s:50,2m:50,30s:0')!,
      }).phases,
    ).toEqual([
      {
        name: 'stage-1',
        workload: 0,
        durationMs: 30_000,
        load: { kind: 'rate', fromPerS: 0, toPerS: 50 },
        arrivals: 'uniform',
      },
      {
        name: 'stage-2',
        workload: 0,
        durationMs: 120_000,
        load: { kind: 'rate', fromPerS: 50, toPerS: 50 },
        arrivals: 'uniform',
      },
      {
        name: 'stage-3',
        workload: 0,
        durationMs: 30_000,
        load: { kind: 'rate', fromPerS: 50, toPerS: 0 },
        arrivals: 'uniform',
      },
    ]);
    expect(
      inlinePlan(flags, { requests: 200, load: rateLoad(40) }).phases.map(({ workload: _, ...phase }) => phase),
    ).toEqual([
      { name: 'cli', durationMs: 5000, load: { kind: 'rate', fromPerS: 40, toPerS: 40 }, arrivals: 'uniform' },
    ]);
    expect(() => inlinePlan(flags, { requests: 10, load: rateLoad(1, 5) })).toThrow(
      /^--requests: expected a constant --rate R/,
    );
    expect(() => inlinePlan(flags, { stages: parseStages('1s:5')!, durationMs: 5000 })).toThrow(
      /^--stages: expected --stages alone/,
    );
  });

  it('adds --threshold expressions, and --ca / --insecure over the transport', () => {
    const plan = inlinePlan(
      { target: 'https://h', client: ['a:b'], method: ['ping'] },
      { thresholds: ['p99 < 200ms'], insecure: true, ca: '-----BEGIN CERTIFICATE-----\n' },
    );
    expect(plan.thresholds.map((t) => t.expr)).toEqual(['p99 < 200ms']);
    expect(plan.http).toMatchObject({ insecure: true, ca: '-----BEGIN CERTIFICATE-----\n' });
  });

  it('--http-client chooses the load client (default fast)', () => {
    const flags = { target: 'https://h', client: ['a:b'], method: ['ping'] };
    expect(inlinePlan(flags, {}).http.client).toBe('rpcload');
    expect(inlinePlan(flags, { httpClient: 'undici' }).http.client).toBe('undici');
  });
});
