/**
 * `orders.create`, `orders.get`, `orders.cancel`, `orders.delete`: a small stateful family for
 * flows (save an id from one reply, use it in the next request). An order belongs to the client
 * that created it; to any other client it does not exist (404 `not_found`).
 */
import { errorReply, INVALID_ARGUMENTS, NOT_FOUND, successReply, type Reply } from '../reply.ts';
import type { MethodHandler } from './method.ts';
import type { Order, OrderStore } from './order-store.ts';

/** Largest `item` kept, serialized: what bounds an order's memory (with the store's count). */
export const MAX_ITEM_BYTES = 512;
const MAX_QTY = 1_000_000;

/** Cancelling an order that is already cancelled: a conflict with its state, not a bad argument. */
export const INVALID_STATE = errorReply(409, 'invalid_state');

/** What every method of the family answers about an order (never its owner). */
function orderData(order: Order): Record<string, unknown> {
  const { id, state, item, qty } = order;
  return { id, state, item, qty, items: [{ sku: item, qty }] };
}

function isQty(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= MAX_QTY;
}

/**
 * `orders.create`: args `item` (any JSON value up to MAX_ITEM_BYTES serialized; default null) and
 * `qty` (an integer 1–1,000,000; default 1); other arguments are ignored. A new order, state open.
 */
function createOrder(store: OrderStore): MethodHandler {
  return (args, call): Reply => {
    const item = args.item ?? null;
    const qty = args.qty ?? 1;
    if (!isQty(qty) || Buffer.byteLength(JSON.stringify(item)) > MAX_ITEM_BYTES) return INVALID_ARGUMENTS;
    return successReply(orderData(store.create(call.clientId, item, qty)));
  };
}

/** A method on one existing order of the caller's, named by arg `id` (a string). */
function onOrder(store: OrderStore, act: (order: Order) => Reply): MethodHandler {
  return (args, call): Reply => {
    const { id } = args;
    if (typeof id !== 'string') return INVALID_ARGUMENTS;
    const order = store.find(call.clientId, id);
    return order === undefined ? NOT_FOUND : act(order);
  };
}

/** The four methods by name, over one store (shared by every replica). */
type OrderMethod = `orders.${'create' | 'get' | 'cancel' | 'delete'}`;

export function createOrderMethods(store: OrderStore): Readonly<Record<OrderMethod, MethodHandler>> {
  return {
    'orders.create': createOrder(store),
    'orders.get': onOrder(store, (order) => successReply(orderData(order))),
    'orders.cancel': onOrder(store, (order) => {
      if (order.state === 'cancelled') return INVALID_STATE;
      order.state = 'cancelled';
      return successReply(orderData(order));
    }),
    'orders.delete': onOrder(store, (order) => {
      store.delete(order.owner, order.id);
      return successReply({ id: order.id, deleted: true });
    }),
  };
}
