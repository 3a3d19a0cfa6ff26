import { describe, expect, it } from 'vitest';
import { judgeReplicas, type RouteProbe, type RouteRun } from '../../../src/verify/verdicts/ratelimit-replicas.ts';
import { perReplicaReading } from '../../../src/verify/verdicts/per-replica-hint.ts';
import { admitted, ex } from '../../support/round-trips.ts';

const target = { name: 'target', url: 'http://127.0.0.1:1' };
const r1 = { name: 'replica 1', url: 'http://127.0.0.1:2' };
const r2 = { name: 'replica 2', url: 'http://127.0.0.1:3' };

/** 10 admitted through replica 1 from t = 0, then refused at 20 ms announcing a reset 10 s ahead. */
const spent: RouteRun = {
  route: r1,
  roundTrips: [...admitted(10, 0, 2), ex(20, 'refused', { retryAfterS: 10 })],
  stop: 'refused',
};
const probe = (
  route: typeof r1,
  round: RouteProbe['round'],
  roundTrips: RouteProbe['roundTrips'],
  stop: RouteRun['stop'] = 'refused',
): RouteProbe => ({
  route,
  round,
  roundTrips,
  stop,
});
const judge = (probes: RouteProbe[], spentRun: RouteRun = spent) =>
  judgeReplicas({ limit: 10, windowMs: 10_000, replicaCount: 2, spent: spentRun, probes });

describe('ratelimit.replicas verdict', () => {
  it.each([
    // a shared store: every other route refuses at once and later, announcing the same reset
    [
      'shared limiter',
      [
        probe(target, 'at once', [ex(30, 'refused', { retryAfterS: 10 })]),
        probe(r2, 'at once', [ex(40, 'refused', { retryAfterS: 10 })]),
        probe(target, 'later', [ex(4000, 'refused', { retryAfterS: 6 })]),
        probe(r2, 'later', [ex(4010, 'refused', { retryAfterS: 6 })]),
      ],
      'pass',
      /^after replica 1 refused \(10 admitted\), target and replica 2 refused the same client at once and again 4 s later.*agree within the 1 s rounding$/,
    ],
    // each replica counts on its own: replica 2 hands out a second quota
    [
      'per-replica counting',
      [
        probe(target, 'at once', [ex(30, 'refused', { retryAfterS: 10 })]),
        probe(r2, 'at once', [...admitted(10, 40, 2), ex(60, 'refused', { retryAfterS: 10 })]),
      ],
      'fail',
      /^replica 2 admitted 10 more after replica 1 refused: effective limit 20 per 10 s with 2 replicas$/,
    ],
    // refused at first, but a replica forgets the client before the announced reset
    [
      'forgets later',
      [
        probe(r2, 'at once', [ex(40, 'refused', { retryAfterS: 10 })]),
        probe(r2, 'later', [...admitted(3, 4000), ex(4003, 'refused', { retryAfterS: 6 })]),
      ],
      'fail',
      /^replica 2 refused at first, but admitted 3 at 4 s, before the reset replica 1 announced \(not before 9 s\): effective limit 13/,
    ],
    // an admission after the earliest possible reset is not judged
    [
      'admitted after the possible reset',
      [
        probe(r2, 'at once', [ex(40, 'refused', { retryAfterS: 10 })]),
        probe(r2, 'later', [ex(9500, 'admitted'), ex(9501, 'refused', { retryAfterS: 10 })]),
      ],
      'pass',
      /^after replica 1 refused/,
    ],
    // refusals everywhere, but replica 2 announces a reset 5 s sooner
    [
      'Retry-After disagrees',
      [probe(r2, 'at once', [ex(40, 'refused', { retryAfterS: 5 })])],
      'fail',
      /^Retry-After disagrees across routes: replica 2 announced the reset at 5 s, replica 1 at 10 s/,
    ],
    // a replica without a limiter verdict
    [
      'replica unreachable',
      [probe(r2, 'at once', [ex(40, 'failed')], 'failed')],
      'skip',
      /through replica 2 got no verdict from the limiter \(transport:ECONNRESET/,
    ],
  ] as const)('%s', (_name, probes, verdict, detail) => {
    const result = judge([...probes]);
    expect(result.verdict).toBe(verdict);
    expect(result.detail).toMatch(detail);
  });

  it('says when the spent route itself admitted a multiple of the limit: per-replica counting behind it', () => {
    const viaTarget: RouteRun = {
      route: target,
      roundTrips: [...admitted(20, 0), ex(20, 'refused', { retryAfterS: 10 })],
      stop: 'refused',
    };
    const result = judge([probe(r1, 'at once', [ex(30, 'refused', { retryAfterS: 10 })])], viaTarget);
    expect(result.verdict).toBe('fail');
    expect(result.detail).toMatch(
      /^target admitted 20 before its first refusal; the limit is 10 — 2 × the limit: looks like per-replica counting$/,
    );
    expect(result.evidence.perReplicaCounting).toEqual({ admitted: 20, limit: 10, replicas: 2 });
  });

  it('does not judge a spend that was never refused', () => {
    const result = judge([], { route: r1, roundTrips: admitted(25, 0), stop: 'cap' });
    expect(result).toMatchObject({ verdict: 'skip', skipClass: 'inconclusive' });
    expect(result.detail).toMatch(/no refusal after 25 requests through replica 1/);
  });
});

describe('per-replica reading of a count', () => {
  it.each([
    [200, 100, 2], // two replicas
    [300, 100, 3], // three
    [100, 100, null], // exactly the limit: nothing to say
    [150, 100, null], // over, but not a multiple
    [20, 10, 2],
  ] as const)('%i admitted under a limit of %i → %s replicas', (count, limit, replicas) => {
    expect(perReplicaReading(count, limit)?.replicas ?? null).toBe(replicas);
  });
});
