import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolvePlan } from '../../src/profile/build-plan.ts';
import { formatProblem } from '../../src/profile/problems.ts';
import { useTempDir } from '../support/temp-dir.ts';

const dir = useTempDir('rpcload-validate-');
const source = join(dir, 'p.json');
writeFileSync(join(dir, 'bad-secrets.json'), '["not", "an object"]');

const minimal = { scenarios: [{ steps: [{ method: 'ping' }] }], phases: [{ duration: '1s', rate: 1 }] };
/** The minimal profile with some top-level properties replaced (undefined removes one). */
const problemsOf = (patch: Record<string, unknown>) => {
  const profile: Record<string, unknown> = { ...minimal, ...patch };
  for (const key of Object.keys(patch)) if (patch[key] === undefined) delete profile[key];
  return resolvePlan(profile, { source }).problems;
};

describe('profile validation: one problem each, with its path and message', () => {
  it.each([
    // --- schema (TypeBox), reworded
    // an unknown top-level property lists the known ones
    [
      { phasez: [] },
      '/phasez',
      'expected one of the properties $schema, name, description, target, replicas, server, auth, clients, scenarios, phases, replay, workloads, setup, teardown, data, rateLimit, thresholds, http, sign, capacity, report, seed, checkpointEvery, found unknown property "phasez"',
    ],
    // a required section missing
    [{ scenarios: undefined }, '/scenarios', 'expected a list of at least 1 item (required), found nothing'],
    // an empty list where one item is needed
    [{ phases: [] }, '/phases', 'expected a list of at least 1 item, found []'],
    // a wrong type, with the offending value
    [{ http: { connections: '64' } }, '/http/connections', 'expected an integer ≥ 1, found "64"'],
    // a number out of range
    [{ server: { flakyRate: 1.5 } }, '/server/flakyRate', 'expected a number from 0 to 1, found 1.5'],
    // an enum
    [
      { auth: { clientAuth: 'digest' } },
      '/auth/clientAuth',
      'expected one of "post", "basic", "private_key_jwt", found "digest"',
    ],
    // an unknown nested property
    [
      { rateLimit: { limt: 5 } },
      '/rateLimit/limt',
      'expected one of the properties limit, window, on429, found unknown property "limt"',
    ],
    // a weight must be positive
    [
      { scenarios: [{ weight: 0, steps: [{ method: 'ping' }] }] },
      '/scenarios/0/weight',
      'expected a number greater than 0, found 0',
    ],
    // a union resolved to the variant meant: a ramp missing "to"
    [
      { phases: [{ duration: '1s', rate: { from: 1 } }] },
      '/phases/0/rate/to',
      'expected a number ≥ 0 (required), found nothing',
    ],
    // a union matching no variant by type
    [
      { phases: [{ duration: '1s', rate: 'fast' }] },
      '/phases/0/rate',
      'expected a number ≥ 0 or an object with from, to, found "fast"',
    ],
    // the clients union: "list" present, so the list form is meant
    [
      { clients: { list: [{ id: 'a' }], count: 2 } },
      '/clients/count',
      'expected one of the properties list, secretsFile, certPattern, keyPattern, privateKeyPattern, found unknown property "count"',
    ],
    // paginate: true or an object
    [
      { scenarios: [{ steps: [{ method: 'items.list', paginate: { maxPages: 0 } }] }] },
      '/scenarios/0/steps/0/paginate/maxPages',
      'expected an integer ≥ 1, found 0',
    ],
    // an unknown fault name
    [{ server: { faults: ['nope'] } }, '/server/faults/0', 'expected one of "limit-plus-one"'],
    // --- semantic checks
    // a target that is not http(s)
    [
      { target: 'ftp://example.com', clients: { secret: 'shh-shared' } },
      '/target',
      'expected an http:// or https:// URL, found "ftp://example.com"',
    ],
    // a duration that does not parse
    [
      { phases: [{ duration: '10 parsecs', rate: 1 }] },
      '/phases/0/duration',
      'expected a duration like "500ms", "10s" or "1m30s", found "10 parsecs"',
    ],
    // a phase of zero length
    [{ phases: [{ duration: '0s', rate: 1 }] }, '/phases/0/duration', 'expected a duration greater than 0, found "0s"'],
    // a zero window
    [{ rateLimit: { window: '0ms' } }, '/rateLimit/window', 'expected a duration greater than 0, found "0ms"'],
    // a bad think time
    [
      { scenarios: [{ steps: [{ method: 'ping', think: 'a while' }] }] },
      '/scenarios/0/steps/0/think',
      'found "a while"',
    ],
    // both load kinds
    [
      { phases: [{ duration: '1s', rate: 1, concurrency: 2 }] },
      '/phases/0',
      'expected exactly one of "rate" (arrivals per second) and "concurrency" (virtual users), found both',
    ],
    // neither load kind
    [
      { phases: [{ duration: '1s' }] },
      '/phases/0',
      'expected exactly one of "rate" (arrivals per second) and "concurrency" (virtual users), found neither',
    ],
    // duplicate scenario names
    [
      {
        scenarios: [
          { name: 'a', steps: [{ method: 'ping' }] },
          { name: 'a', steps: [{ method: 'echo' }] },
        ],
      },
      '/scenarios/1/name',
      'expected a unique scenario name (scenario 1 is also "a"), found "a"',
    ],
    // a name that collides with a default name
    [
      {
        phases: [
          { duration: '1s', rate: 1 },
          { name: 'phase-1', duration: '1s', rate: 2 },
        ],
      },
      '/phases/1/name',
      'expected a unique phase name (phase 1 is also "phase-1"), found "phase-1"',
    ],
    // threshold syntax, checked when the plan is built
    [
      { thresholds: ['p95 < 250ms', 'p101 < 3ms'] },
      '/thresholds/1',
      'expected a percentile from p0.1 to p100, like p95 or p99.9, found "p101"',
    ],
    // template syntax, with the path inside args
    [
      { scenarios: [{ steps: [{ method: 'echo', args: { a: { b: '{{nope}}' } } }] }] },
      '/scenarios/0/steps/0/args/a/b',
      'found "{{nope}}"',
    ],
    // a pattern without {n} would give every client the same id
    [
      { clients: { pattern: 'client', count: 2 } },
      '/clients/pattern',
      'expected a client id pattern containing {n}, found "client"',
    ],
    // a weight for an id the pattern does not make
    [
      { clients: { count: 3, weights: { 'client-9': 5 } } },
      '/clients/weights/client-9',
      'expected a client id the pattern makes (client-1 … client-3), found "client-9"',
    ],
    // duplicate listed ids
    [
      { clients: { list: [{ id: 'a' }, { id: 'b' }, { id: 'a' }] } },
      '/clients/list/2/id',
      'expected a unique client id (this one is also /clients/list/0/id), found "a"',
    ],
    // a paginated step must not set "next" itself
    [
      { scenarios: [{ steps: [{ method: 'items.list', paginate: true, args: { next: 'c1' } }] }] },
      '/scenarios/0/steps/0/args/next',
      'expected no "next" in the args of a paginated step (the walk sets it), found "c1"',
    ],
    // the token request is the driver's job
    [
      { scenarios: [{ steps: [{ method: 'auth.token' }] }] },
      '/scenarios/0/steps/0/method',
      'expected an API method (the driver makes the token request "auth.token" itself), found "auth.token"',
    ],
    // … also under a renamed token method
    [
      { auth: { tokenMethod: 'oauth.token' }, scenarios: [{ steps: [{ method: 'oauth.token' }] }] },
      '/scenarios/0/steps/0/method',
      'the token request "oauth.token"',
    ],
    // a secrets file that does not exist
    [
      { clients: { secretsFile: 'missing.json' } },
      '/clients/secretsFile',
      'expected a readable JSON object of client id → secret, found "missing.json": no such file',
    ],
    // a secrets file that is not an object
    [
      { clients: { secretsFile: 'bad-secrets.json' } },
      '/clients/secretsFile',
      'found "bad-secrets.json": not a JSON object',
    ],
    // an external target needs secrets (pattern form: one line for all)
    [
      { target: 'https://api.example.com', clients: { count: 5 } },
      '/clients/secret',
      'found none for client-1, client-2, client-3 … (5 clients)',
    ],
    // … (list form: per client)
    [
      { target: 'https://api.example.com', clients: { list: [{ id: 'a', secret: 'sa' }, { id: 'b' }] } },
      '/clients/list/1/secret',
      'expected a secret for a client of an external target ("secret": "${ENV_VAR}" or clients.secretsFile), found none for "b"',
    ],
    // an empty secret counts as none
    [
      { target: 'https://api.example.com', clients: { count: 1, secret: '' } },
      '/clients/secret',
      'found none for client-1',
    ],
    // expires_in is whole seconds
    [{ server: { tokenTtl: '1500ms' } }, '/server/tokenTtl', 'expected a whole number of seconds, found "1500ms"'],
    // a latency model upside down
    [
      { server: { workLatency: { p50: '50ms', p99: '10ms' } } },
      '/server/workLatency/p99',
      'expected at least p50 ("50ms"), found "10ms"',
    ],
    // a CA file that does not exist
    [{ http: { ca: 'ca.pem' } }, '/http/ca', 'found "ca.pem": no such file'],
    // checkpoints need a positive interval
    [{ checkpointEvery: '0s' }, '/checkpointEvery', 'expected a duration greater than 0, found "0s"'],
  ])('%j → %s', (patch, path, message) => {
    const problems = problemsOf(patch);
    expect(problems, JSON.stringify(problems)).toHaveLength(1);
    expect(problems[0]!.path).toBe(path);
    expect(problems[0]!.message).toContain(message);
  });

  it('never shows a secret as the found value', () => {
    const problems = problemsOf({ clients: { list: [{ id: 'a', secret: 1234567 }] } });
    expect(problems).toEqual([
      { path: '/clients/list/0/secret', message: 'expected a string, found a value (not shown: secret)' },
    ]);
  });
});

describe('profile validation: every problem in one pass', () => {
  it('reports problems from every section, in document order, one line each', () => {
    const profile = {
      name: 'multi',
      target: 'not a url',
      auth: { clientAuth: 'digest', refreshMargin: 'soon' },
      scenarios: [
        { name: 's', weight: -1, steps: [{ method: 'echo', args: { x: '{{nope}}' } }] },
        { name: 's', steps: [{ method: 'ping', think: '1x' }] },
      ],
      phases: [{ duration: '1s' }, { duration: 'x', rate: 1 }],
      http: { connections: 0, connectTimeout: 'never' },
      thresholds: ['p99 <'],
    };
    const lines = resolvePlan(profile, { source: 'multi.json' }).problems.map((p) => formatProblem('multi.json', p));
    expect(lines).toEqual([
      'multi.json: /target: expected an http:// or https:// URL, found "not a url"',
      'multi.json: /auth/clientAuth: expected one of "post", "basic", "private_key_jwt", found "digest"',
      'multi.json: /auth/refreshMargin: expected a duration like "500ms", "10s" or "1m30s", found "soon"',
      'multi.json: /scenarios/0/weight: expected a number greater than 0, found -1',
      'multi.json: /scenarios/0/steps/0/args/x: expected a template {{client.id}}, {{client.index}}, {{iteration}}, {{uuid}}, {{pick a|b}}, {{int MIN MAX}}, {{pad N}}, {{vars.NAME}}, {{data.SET.COLUMN}} or {{setup.NAME}}, found "{{nope}}"',
      'multi.json: /scenarios/1/name: expected a unique scenario name (scenario 1 is also "s"), found "s"',
      'multi.json: /scenarios/1/steps/0/think: expected a duration like "500ms", "10s" or "1m30s", found "1x"',
      'multi.json: /phases/0: expected exactly one of "rate" (arrivals per second) and "concurrency" (virtual users), found neither',
      'multi.json: /phases/1/duration: expected a duration like "500ms", "10s" or "1m30s", found "x"',
      'multi.json: /http/connections: expected an integer ≥ 1, found 0',
      'multi.json: /http/connectTimeout: expected a duration like "500ms", "10s" or "1m30s", found "never"',
      'multi.json: /thresholds/0: expected a threshold like "p99 < 250ms", "error_rate{method:items.list} < 1%", "p95{workload:browse} < 2s" or "rps >= 50", found "p99 <"',
      // the target looks external, so the (default) clients need secrets: missing, so sorted last
      'multi.json: /clients/secret: expected a secret for a client of an external target ("secret": "${ENV_VAR}" or clients.secretsFile), found none for client-1, client-2, client-3 … (10 clients)',
    ]);
  });

  it('reports a document that is not an object as one problem at the root', () => {
    expect(resolvePlan([1, 2], { source }).problems).toEqual([
      { path: '', message: 'expected an object, found [1,2]' },
    ]);
  });

  it('builds no plan while there are problems, and one when there are none', () => {
    expect(resolvePlan({ ...minimal, phases: [] }, { source }).plan).toBeUndefined();
    expect(resolvePlan(minimal, { source }).plan).toBeDefined();
  });
});
