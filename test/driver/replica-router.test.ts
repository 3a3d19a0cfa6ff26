import { describe, expect, it } from 'vitest';
import type { ConnectionSet } from '../../src/driver/connection-set.ts';
import { ReplicaRouter, type RoutedRequest } from '../../src/driver/replica-router.ts';

/** Connection sets that only note what they were asked to carry. */
function fakeSets(count: number): { sets: ConnectionSet[]; carried: number[][] } {
  const carried = Array.from({ length: count }, (): number[] => []);
  const sets = carried.map(
    (log) =>
      ({
        dispatch: (r: RoutedRequest) => log.push(r.route),
        release: () => undefined,
        queued: 0,
      }) as unknown as ConnectionSet,
  );
  return { sets, carried };
}

describe('replica router', () => {
  it.each([
    // one route: always it
    [1, 'request', [0, 1, 2, 3], [0, 0, 0, 0]],
    // round robin per request, whoever the client
    [3, 'request', [0, 0, 0, 0, 1], [0, 1, 2, 0, 1]],
    // per client: its index modulo the replicas, every time
    [3, 'client', [0, 4, 4, 2, 0], [0, 1, 1, 2, 0]],
  ] as const)('%i route(s), affinity %s: clients %j go to %j', (count, affinity, clients, routes) => {
    const { sets, carried } = fakeSets(count);
    const router = new ReplicaRouter(sets, affinity);
    const picked = clients.map((client) => {
      const request = { route: router.pick(client) } as RoutedRequest;
      router.dispatch(request);
      return request.route;
    });
    expect(picked).toEqual(routes);
    // Each request went to the connections of the route it was given.
    expect(carried.map((log) => log.length)).toEqual(sets.map((_, i) => routes.filter((r) => r === i).length));
  });
});
