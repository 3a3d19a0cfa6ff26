/**
 * The reference server in a worker thread, driven from the calling thread by messages
 * (see worker-protocol.ts).
 */
import { RpcloadError } from '../errors.ts';
import { startModuleWorker } from '../util/module-worker.ts';
import type { RemoteServerHandle, ServerOptions } from './options.ts';
import type { WorkerMessage, WorkerRequest } from './worker-protocol.ts';

/** How long close() waits for the worker to exit on its own before terminating it. */
const WORKER_EXIT_GRACE_MS = 5000;

type Reply = Extract<WorkerMessage, { type: 'reply' }>;
type RequestBody = WorkerRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never;

/**
 * Start the reference server in a worker thread, so that a load generator in this thread never
 * shares an event loop with its target. Same interface as startServer; stats, revocation and
 * close travel as messages.
 */
export function startServerInWorker(options: ServerOptions = {}): Promise<RemoteServerHandle> {
  const worker = startModuleWorker(import.meta.url, 'worker-entry', options);
  const pending = new Map<number, { resolve: (reply: Reply) => void; reject: (err: Error) => void }>();
  let nextId = 0;
  let exited = false;
  const exit = new Promise<void>((resolve) => worker.once('exit', () => resolve()));

  const call = (request: RequestBody): Promise<Reply> =>
    new Promise((resolve, reject) => {
      if (exited) {
        reject(new Error('the server worker has exited'));
        return;
      }
      const id = nextId++;
      pending.set(id, { resolve, reject });
      worker.postMessage({ ...request, id });
    });

  const ready = (message: Extract<WorkerMessage, { type: 'ready' }>): RemoteServerHandle => {
    let closing: Promise<void> | undefined;
    const close = async (): Promise<void> => {
      if (exited) return;
      await call({ op: 'close' });
      const timer = setTimeout(() => void worker.terminate(), WORKER_EXIT_GRACE_MS);
      await exit;
      clearTimeout(timer);
    };
    return {
      url: message.url,
      port: message.port,
      certPem: message.certPem,
      stats: async () => {
        const reply = await call({ op: 'stats' });
        if (reply.stats === undefined) throw new Error('the server worker sent no stats');
        return reply.stats;
      },
      revokeTokens: async (clientId) => {
        await call(clientId === undefined ? { op: 'revoke' } : { op: 'revoke', clientId });
      },
      close: () => (closing ??= close()),
    };
  };

  return new Promise((resolve, reject) => {
    // Before `ready` these reject the start; afterwards the promise is settled and they are no-ops.
    worker.on('error', reject);
    void exit.then(() => {
      exited = true;
      reject(new Error('the server worker exited before it was ready'));
      for (const { reject: rejectCall } of pending.values()) rejectCall(new Error('the server worker has exited'));
      pending.clear();
    });
    worker.on('message', (message: WorkerMessage) => {
      if (message.type === 'reply') {
        pending.get(message.id)?.resolve(message);
        pending.delete(message.id);
      } else if (message.type === 'failed') {
        reject(
          message.code === undefined ? new Error(message.message) : new RpcloadError(message.code, message.message),
        );
      } else {
        resolve(ready(message));
      }
    });
  });
}
