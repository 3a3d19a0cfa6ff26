/** How clients map onto connection lanes: one shared lane unless clients present certificates of their own. */
import { describe, expect, it } from 'vitest';
import type { ClientTlsIdentity } from '../../src/api/dispatcher.ts';
import { connectionLanes } from '../../src/driver/connection-lanes.ts';

const own = (name: string): ClientTlsIdentity => ({
  cert: `cert of ${name}`,
  key: `key of ${name}`,
  source: `${name}.pem`,
});
const common = own('common');

describe('connectionLanes', () => {
  it.each([
    // no per-client certificate: one lane of every connection, the common certificate on it
    { clients: [null, null, null], connections: 64, lanes: [64], laneOf: [0, 0, 0] },
    // every client its own: a lane each, the connections shared out evenly
    { clients: ['a', 'b'], connections: 64, lanes: [32, 32], laneOf: [0, 1] },
    // a mix: the shared lane carries its clients' share
    { clients: [null, 'b', null, 'd'], connections: 8, lanes: [4, 2, 2], laneOf: [0, 1, 0, 2] },
    // more clients with certificates than connections: still at least one each
    { clients: ['a', 'b', 'c'], connections: 2, lanes: [1, 1, 1], laneOf: [0, 1, 2] },
    // no clients at all: one empty lane (nothing will use it)
    { clients: [], connections: 4, lanes: [4], laneOf: [] },
  ])('$clients over $connections connections → lanes $lanes', ({ clients, connections, lanes, laneOf }) => {
    const layout = connectionLanes(
      clients.map((name) => ({ tls: name === null ? null : own(name) })),
      connections,
      common,
    );
    expect(layout.lanes.map((lane) => lane.connections)).toEqual(lanes);
    expect(layout.laneOf).toEqual(laneOf);
  });

  it('puts the common certificate on the shared lane and each client’s own on its lane', () => {
    const layout = connectionLanes([{ tls: null }, { tls: own('b') }], 4, common);
    expect(layout.lanes.map((lane) => lane.identity?.source)).toEqual(['common.pem', 'b.pem']);
  });
});
