/** The reference server's method table: each API method name mapped to its handler. */
import type { ServerConfig } from '../resolved-config.ts';
import { createRandom, logNormalSampler } from '../random.ts';
import { successReply } from '../reply.ts';
import { login } from './accounts.ts';
import { createCatalogMethods } from './catalog.ts';
import { CursorCodec } from './cursor.ts';
import { createItemsList } from './items.ts';
import type { MethodHandler } from './method.ts';
import type { MethodName } from './method-help.ts';
import { OrderStore } from './order-store.ts';
import { createOrderMethods } from './orders.ts';
import { createFlaky, createWork } from './work.ts';

/** `ping`'s reply never changes: serialize it once. */
const PONG = successReply({ pong: true });

/**
 * What the methods keep between calls, one for all the replicas of a server (like a database
 * behind them): the orders, and the key that signs pagination cursors — so an id or a cursor from
 * one replica is good on every other, and survives a restart.
 */
export interface MethodData {
  readonly orders: OrderStore;
  readonly cursors: CursorCodec;
}

export function createMethodData(config: Pick<ServerConfig, 'maxOrders'>): MethodData {
  return { orders: new OrderStore(config.maxOrders), cursors: new CursorCodec() };
}

/**
 * The server's methods by name (every name of METHOD_HELP, the compiler makes sure). Each random
 * part gets its own seeded stream, so one method's traffic does not shift another's draws.
 */
export function createMethods(config: ServerConfig, data: MethodData): ReadonlyMap<string, MethodHandler> {
  const { workLatency, faults } = config;
  const methods: Readonly<Record<MethodName, MethodHandler>> = {
    ping: () => PONG,
    echo: (args) => successReply(args),
    'items.list': createItemsList({
      itemCount: config.itemCount,
      defaultPageSize: config.pageSize,
      cursorTtlMs: config.cursorTtlMs,
      codec: data.cursors,
      emptyLastCursor: faults.has('pagination-empty-cursor'),
      oversizePages: faults.has('pagination-oversize'),
    }),
    work: createWork(logNormalSampler(createRandom(config.seed + 1), workLatency.p50Ms, workLatency.p99Ms)),
    flaky: createFlaky(createRandom(config.seed + 2), config.flakyRate),
    ...createOrderMethods(data.orders),
    ...createCatalogMethods({ codec: data.cursors, cursorTtlMs: config.cursorTtlMs }),
    'accounts.login': login,
  };
  return new Map(Object.entries(methods));
}
