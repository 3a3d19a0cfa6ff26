import type { Plan } from '../profile/plan.ts';
import type { ServerStats } from '../server/options.ts';
import { startServerInWorker } from '../server/worker.ts';

/** Where a run sends its load: the plan's target, or the embedded reference server. */
export interface Target {
  readonly url: string;
  readonly embedded: boolean;
  /** Server-side counts (embedded target only). */
  readonly stats: (() => Promise<ServerStats>) | null;
  close(): Promise<void>;
}

/**
 * Start the reference server in a worker thread — never on the driver's event loop, so the
 * server's work cannot show up as the generator's schedule lag — configured with exactly the
 * plan's clients and secrets.
 */
export async function startEmbeddedTarget(plan: Plan): Promise<Target> {
  const server = await startServerInWorker({
    ...plan.embeddedServer,
    clients: plan.clients.map(({ id, secret }) => ({ id, secret })),
  });
  return { url: server.url, embedded: true, stats: () => server.stats(), close: () => server.close() };
}
