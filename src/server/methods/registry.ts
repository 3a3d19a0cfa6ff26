/** The reference server's method table: each API method name mapped to its handler. */
import type { ServerConfig } from '../resolved-config.ts';
import { createRandom, logNormalSampler } from '../random.ts';
import { successReply } from '../reply.ts';
import { CursorCodec } from './cursor.ts';
import { createItemsList } from './items.ts';
import type { MethodHandler } from './method.ts';
import { createFlaky, createWork } from './work.ts';

/** `ping`'s reply never changes: serialize it once. */
const PONG = successReply({ pong: true });

/**
 * The server's methods by name: ping, echo, items.list, work, flaky. Each random part gets its
 * own seeded stream, so one method's traffic does not shift another's draws.
 */
export function createMethods(config: ServerConfig): ReadonlyMap<string, MethodHandler> {
  const { workLatency, faults } = config;
  return new Map<string, MethodHandler>([
    ['ping', () => PONG],
    ['echo', (args) => successReply(args)],
    [
      'items.list',
      createItemsList({
        itemCount: config.itemCount,
        defaultPageSize: config.pageSize,
        cursorTtlMs: config.cursorTtlMs,
        codec: new CursorCodec(),
        emptyLastCursor: faults.has('pagination-empty-cursor'),
        oversizePages: faults.has('pagination-oversize'),
      }),
    ],
    ['work', createWork(logNormalSampler(createRandom(config.seed + 1), workLatency.p50Ms, workLatency.p99Ms))],
    ['flaky', createFlaky(createRandom(config.seed + 2), config.flakyRate)],
  ]);
}
