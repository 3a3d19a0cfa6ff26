import { describe, expect, it } from 'vitest';
import { defaultProfilePath, loadPlan } from '../../src/profile/load-profile.ts';
import { parseClientFlag, parseOnlyFlag, parsePaginatedFlag, resolveVerifyConfig } from '../../src/verify/config.ts';

describe('verify configuration', () => {
  it('reads flags alone with the conventions as defaults', () => {
    const config = resolveVerifyConfig(
      {
        client: ['client-1:s3cret:with:colons'],
        method: ['ping', 'echo', 'ping'],
        paginated: ['items.list', 'orders.find:orders'],
      },
      null,
      'http://h/',
      null,
    );
    expect(config).toMatchObject({
      target: 'http://h',
      tokenMethod: 'auth.token',
      clientAuth: 'post',
      clients: [{ id: 'client-1', secret: 's3cret:with:colons' }],
      methods: ['ping', 'echo'],
      paginated: [
        { method: 'items.list', field: null },
        { method: 'orders.find', field: 'orders' },
      ],
      limit: 100,
      windowMs: 10_000,
      payloadLimitBytes: null,
      only: null,
    });
  });

  it.each([
    // the secret is never echoed
    [() => parseClientFlag('justasecretvalue'), /--client: expected ID:SECRET, found no colon$/],
    [() => parseClientFlag(':secret'), /an empty ID or secret/],
    [() => parsePaginatedFlag('items.list:'), /expected NAME or NAME:ARRAYFIELD/],
    [
      () => parseOnlyFlag('envelope,ratelimit.treshold'),
      /--only: unknown check id\(s\) "ratelimit.treshold"; known: envelope, /,
    ],
    [
      () => resolveVerifyConfig({ method: ['ping'] }, null, 'http://h', null),
      /no client to verify with: pass --client ID:SECRET/,
    ],
    [() => resolveVerifyConfig({ client: ['a:b'] }, null, 'http://h', null), /no method to probe: pass --method NAME/],
    [
      () => resolveVerifyConfig({ client: ['a:b', 'a:c'], method: ['ping'] }, null, 'http://h', null),
      /client "a" given twice/,
    ],
  ])('rejects bad input in one line (%#)', (run, message) => {
    expect(run).toThrow(message);
  });

  it('parses --only into check ids', () => {
    expect(parseOnlyFlag(' envelope , tls ')).toEqual(['envelope', 'tls']);
  });
});

describe('verify configuration from a profile', () => {
  it('takes target, auth, clients, methods (distinct step methods), paginated steps and the contract from the plan; flags override', async () => {
    const plan = await loadPlan(defaultProfilePath());
    const fromProfile = resolveVerifyConfig({}, plan, 'http://embedded', null);
    expect(fromProfile).toMatchObject({
      methods: ['ping', 'echo', 'items.list', 'work', 'flaky'],
      paginated: [{ method: 'items.list', field: null }],
      limit: plan.rateLimit.limit,
      windowMs: plan.rateLimit.windowMs,
      tokenMethod: plan.auth.tokenMethod,
    });
    expect(fromProfile.clients.map((c) => c.id)).toEqual(plan.clients.map((c) => c.id));
    const overridden = resolveVerifyConfig(
      { method: ['echo'], limit: 10, window: 1000, client: ['x:y'], clientAuth: 'basic' },
      plan,
      'http://embedded',
      null,
    );
    expect(overridden).toMatchObject({
      methods: ['echo'],
      limit: 10,
      windowMs: 1000,
      clients: [{ id: 'x', secret: 'y' }],
      clientAuth: 'basic',
    });
  });
});
