// The server's thread under startServerInWorker: start the server with the options it was given,
// report `ready` (or `failed`), then answer stats/revoke/close requests until closed.
import { parentPort, workerData } from 'node:worker_threads';
import { describeError, RpcloadError } from '../errors.ts';
import type { ServerOptions } from './options.ts';
import { startServer } from './start-server.ts';
import type { WorkerMessage, WorkerRequest } from './worker-protocol.ts';

const port = parentPort!;
const post = (message: WorkerMessage): void => port.postMessage(message);

try {
  const handle = await startServer(workerData as ServerOptions);
  port.on('message', (request: WorkerRequest) => {
    if (request.op === 'stats') post({ type: 'reply', id: request.id, stats: handle.stats() });
    else if (request.op === 'revoke') {
      handle.revokeTokens(request.clientId);
      post({ type: 'reply', id: request.id });
    } else {
      void handle.close().then(() => {
        post({ type: 'reply', id: request.id });
        port.close(); // nothing left to keep this thread alive: it exits
      });
    }
  });
  post({ type: 'ready', url: handle.url, port: handle.port, certPem: handle.certPem });
} catch (err) {
  post({ type: 'failed', message: describeError(err), ...(err instanceof RpcloadError ? { code: err.code } : {}) });
  port.close();
}
