import { describe, expect, it } from 'vitest';
import { RpcloadError } from '../../src/errors.ts';
import { resolveServerConfig } from '../../src/server/resolved-config.ts';
import type { ServerOptions } from '../../src/server/options.ts';

const seed = (): number => 42;

describe('resolveServerConfig', () => {
  it('applies the conventions as defaults', () => {
    const config = resolveServerConfig({}, seed);
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 0,
      limit: 100,
      windowMs: 10_000,
      algorithm: 'fixed',
      payloadLimitBytes: 100_000,
      pageSize: 100,
      tokenMethod: 'auth.token',
      seed: 42,
    });
    expect(config.clientPattern).toEqual({ prefix: 'client-', secret: 'demo-secret' });
  });

  it.each<[string, ServerOptions, unknown]>([
    // registered clients switch the demo pattern off…
    ['clients', { clients: [{ id: 'a', secret: 'b' }] }, null],
    // …unless a pattern is given explicitly
    [
      'clients + pattern',
      { clients: [{ id: 'a', secret: 'b' }], clientPattern: { prefix: 'p-', secret: 's' } },
      { prefix: 'p-', secret: 's' },
    ],
  ])('%s → clientPattern %j', (_name, options, pattern) =>
    expect(resolveServerConfig(options, seed).clientPattern).toEqual(pattern),
  );

  it('payload-limit-wrong overrides the payload limit', () => {
    expect(resolveServerConfig({ faults: ['payload-limit-wrong'] }, seed).payloadLimitBytes).toBe(65_536);
  });

  it.each<[string, ServerOptions, RegExp]>([
    ['a zero limit', { limit: 0 }, /limit must be a positive integer/],
    ['a fractional limit', { limit: 1.5 }, /limit must be a positive integer/],
    ['an unknown algorithm', { algorithm: 'leaky' as never }, /algorithm must be one of/],
    ['an unknown fault', { faults: ['nope' as never] }, /unknown fault "nope"/],
    ['a page size over 100', { pageSize: 101 }, /pageSize must be an integer 1–100/],
    ['a fractional token TTL', { tokenTtlS: 0.5 }, /tokenTtlS must be a whole number/],
    ['a bad method name', { tokenMethod: 'auth/token' }, /tokenMethod must match/],
    ['a realm with a quote', { realm: 'a"b' }, /realm must be printable ASCII/],
    ['p99 below p50', { workLatency: { p50Ms: 50, p99Ms: 10 } }, /workLatency needs/],
    ['a rate over 1', { flakyRate: 2 }, /flakyRate must be between 0 and 1/],
    ['a port out of range', { port: 70_000 }, /port must be an integer/],
  ])('rejects %s with a one-line RpcloadError', (_name, options, message) => {
    let error: unknown;
    try {
      resolveServerConfig(options, seed);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(RpcloadError);
    expect((error as RpcloadError).message).toMatch(message);
    expect((error as RpcloadError).message).not.toContain('\n');
  });

  it('reports every problem at once', () => {
    expect(() => resolveServerConfig({ limit: 0, pageSize: 0, chaosRate: -1 }, seed)).toThrow(
      /limit.*; pageSize.*; chaosRate/,
    );
  });
});
