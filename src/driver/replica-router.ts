/**
 * Where each request of a run goes: the target alone, or one of the API's replicas, each with its
 * own connections. Round robin per request, or one replica per client (its index modulo the
 * replicas), as `--replica-affinity` says. The engine asks for a route, stamps it on the request,
 * and sends and releases through the router, which hands the request to that route's connections.
 */
import type { ReplicaAffinity } from '../profile/plan.ts';
import type { ConnectionRequest, ConnectionSet } from './connection-set.ts';

/** A request that knows its route (an index into the router's connection sets). */
export interface RoutedRequest extends ConnectionRequest {
  route: number;
}

export class ReplicaRouter {
  private next = 0;

  constructor(
    private readonly routes: readonly ConnectionSet[],
    private readonly affinity: ReplicaAffinity,
  ) {}

  /** The route of the next request of client `clientIndex`. */
  pick(clientIndex: number): number {
    const count = this.routes.length;
    if (count === 1) return 0;
    if (this.affinity === 'client') return clientIndex % count;
    const route = this.next;
    this.next = route + 1 === count ? 0 : route + 1;
    return route;
  }

  /** Requests waiting for a free connection, over every route. */
  get queued(): number {
    return this.routes.reduce((sum, set) => sum + set.queued, 0);
  }

  dispatch(request: RoutedRequest): void {
    this.routes[request.route]!.dispatch(request);
  }

  release(request: RoutedRequest): void {
    this.routes[request.route]!.release(request);
  }

  async destroy(): Promise<void> {
    await Promise.all(this.routes.map((set) => set.destroy()));
  }
}
