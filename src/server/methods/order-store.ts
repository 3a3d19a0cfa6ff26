/**
 * The orders behind `orders.*`: each owned by the client that created it, in a store bounded by a
 * count so that a long load test cannot grow the server without bound.
 */
import { randomBytes } from 'node:crypto';
import { DEFAULT_MAX_ORDERS } from '../defaults.ts';

export type OrderState = 'open' | 'cancelled';

/** One order as stored; `owner` never leaves the server. */
export interface Order {
  readonly id: string;
  readonly owner: string;
  state: OrderState;
  /** What the caller ordered: any JSON value (bounded in size by orders.create). */
  readonly item: unknown;
  readonly qty: number;
}

/**
 * Orders by id, in creation order. Past `maxOrders` the oldest order is forgotten, as if deleted:
 * a Map keeps insertion order, so its first key is always the oldest and eviction is O(1).
 * Lookups are by owner: another client's order is indistinguishable from one that never existed.
 */
export class OrderStore {
  readonly #orders = new Map<string, Order>();
  readonly #maxOrders: number;

  constructor(maxOrders: number = DEFAULT_MAX_ORDERS) {
    this.#maxOrders = maxOrders;
  }

  get size(): number {
    return this.#orders.size;
  }

  create(owner: string, item: unknown, qty: number): Order {
    if (this.#orders.size >= this.#maxOrders) this.#orders.delete(this.#orders.keys().next().value!);
    // Random, not a counter: ids reveal nothing about how many orders others made.
    const order: Order = { id: `o_${randomBytes(12).toString('base64url')}`, owner, state: 'open', item, qty };
    this.#orders.set(order.id, order);
    return order;
  }

  /** The order when `owner` created it and it is still kept; undefined otherwise. */
  find(owner: string, id: string): Order | undefined {
    const order = this.#orders.get(id);
    return order?.owner === owner ? order : undefined;
  }

  /** Forget `owner`'s order; false when there was none to forget. */
  delete(owner: string, id: string): boolean {
    return this.find(owner, id) !== undefined && this.#orders.delete(id);
  }
}
