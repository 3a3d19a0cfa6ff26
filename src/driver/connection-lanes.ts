/**
 * How a plan's clients map onto connection lanes (see ConnectionSet): a connection presents one
 * TLS identity, so every client with a certificate of its own gets a lane of its own, and every
 * other client shares one lane (presenting the common certificate, if any). The connections are
 * shared out over the lanes in proportion to their clients, at least one each. Pure.
 */
import type { ClientTlsIdentity } from '../api/dispatcher.ts';
import type { ClientPlan } from '../profile/plan.ts';

export interface ConnectionLane {
  /** The certificate its connections present; null = none. */
  readonly identity: ClientTlsIdentity | null;
  readonly connections: number;
}

export interface LaneLayout {
  readonly lanes: readonly ConnectionLane[];
  /** The lane of each client, by client index. */
  readonly laneOf: readonly number[];
}

/**
 * The lanes of `clients` over `connections` connections. With no per-client certificate this is
 * one lane of all `connections` (the common case, exactly as without lanes).
 */
export function connectionLanes(
  clients: readonly Pick<ClientPlan, 'tls'>[],
  connections: number,
  common: ClientTlsIdentity | null,
): LaneLayout {
  const shared = clients.filter((c) => c.tls === null).length;
  const lanes: { identity: ClientTlsIdentity | null; clients: number }[] =
    shared > 0 || clients.length === 0 ? [{ identity: common, clients: shared }] : [];
  const laneOf = clients.map((client) => {
    if (client.tls === null) return 0;
    lanes.push({ identity: client.tls, clients: 1 });
    return lanes.length - 1;
  });
  const total = Math.max(1, clients.length);
  return {
    lanes: lanes.map((lane) => ({
      identity: lane.identity,
      connections: lanes.length === 1 ? connections : Math.max(1, Math.round((connections * lane.clients) / total)),
    })),
    laneOf,
  };
}
