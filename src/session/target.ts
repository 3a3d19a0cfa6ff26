/**
 * Where a session sends its requests: the plan's target, or the embedded reference server. The
 * embedded server runs in a worker thread — never on the driver's event loop, so the server's
 * work cannot show up as the generator's schedule lag.
 */
import { createPublicKey } from 'node:crypto';
import { assertionKeyObject } from '../api/client-assertion.ts';
import type { Plan } from '../profile/plan.ts';
import type { ServerOptions, ServerStats } from '../server/options.ts';
import { startServerInWorker } from '../server/worker.ts';

export interface Target {
  readonly url: string;
  readonly embedded: boolean;
  /** The embedded server's CA certificate (PEM) when it serves TLS; null otherwise. */
  readonly certPem: string | null;
  /** Server-side counts (embedded target only). */
  readonly stats: (() => Promise<ServerStats>) | null;
  close(): Promise<void>;
}

/**
 * The plan's target, or — when it has none — the reference server configured with exactly the
 * plan's clients, secrets and private_key_jwt public keys (and `serverOverrides`, e.g. the
 * contract `verify` tests).
 */
export async function openTarget(plan: Plan, serverOverrides: Partial<ServerOptions> = {}): Promise<Target> {
  if (plan.target !== null)
    return { url: plan.target, embedded: false, certPem: null, stats: null, close: () => Promise.resolve() };
  const server = await startServerInWorker({
    ...plan.embeddedServer,
    ...serverOverrides,
    clients: plan.clients.map(({ id, secret }) => ({ id, secret })),
    clientKeys: plan.clients.flatMap(({ id, assertionKey }) =>
      assertionKey === null
        ? []
        : [
            {
              id,
              key: createPublicKey(assertionKeyObject(assertionKey)).export({ type: 'spki', format: 'pem' }).toString(),
            },
          ],
    ),
  });
  return {
    url: server.url,
    embedded: true,
    certPem: server.certPem ?? null,
    stats: () => server.stats(),
    close: () => server.close(),
  };
}

/**
 * The warning a session gives — as a line when it starts, and in its result file — when it will
 * not check an https target's certificate (`--insecure`, `http.insecure`): whoever answered, the
 * figures and verdicts are theirs. Null when certificates are checked, or there is none to check.
 */
export function insecureWarning(targetUrl: string | null, insecure: boolean): string | null {
  if (!insecure || targetUrl === null || !targetUrl.startsWith('https:')) return null;
  return `TLS certificate verification is off (--insecure or http.insecure): ${targetUrl} was not authenticated, so anyone able to answer in its place could have produced these results`;
}

/** The plan aimed at `target`: its URL, and the embedded server's certificate trusted when it serves TLS. */
export function aimedAt(plan: Plan, target: Target): Plan & { readonly target: string } {
  return { ...plan, target: target.url, http: { ...plan.http, ca: plan.http.ca ?? target.certPem } };
}
