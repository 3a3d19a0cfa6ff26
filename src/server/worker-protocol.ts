/** Messages between startServerInWorker (main thread) and worker-entry (the server's thread). */
import type { ServerStats } from './options.ts';

/** Main → worker: one request, answered by a WorkerReply with the same id. */
export type WorkerRequest =
  | { readonly id: number; readonly op: 'stats' }
  | { readonly id: number; readonly op: 'revoke'; readonly clientId?: string }
  | { readonly id: number; readonly op: 'close' };

/** Worker → main. */
export type WorkerMessage =
  | { readonly type: 'ready'; readonly url: string; readonly port: number; readonly certPem?: string }
  /** Start-up failed; `code` is the RpcloadError code when it was a user mistake. */
  | { readonly type: 'failed'; readonly message: string; readonly code?: string }
  | { readonly type: 'reply'; readonly id: number; readonly stats?: ServerStats };
