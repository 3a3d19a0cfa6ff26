import { startServer } from '../../src/server/start-server.ts';
import { startServerInWorker } from '../../src/server/worker.ts';
import type { RemoteServerHandle, ServerOptions } from '../../src/server/options.ts';
import type { CheckResult } from '../../src/contract/result-schema.ts';
import { resolveVerifyConfig, type VerifyFlags } from '../../src/verify/config.ts';
import { runVerify, type VerifyReport } from '../../src/verify/runner.ts';
import type { VerifyConfig } from '../../src/verify/config.ts';

/**
 * The short contract the matrix runs at: 10 requests per 2 s window. 2 s rather than 1 s: a
 * loaded 2-core machine cannot always send 11 requests within 1 s (60–300 ms per request were
 * seen at load 10), and with whole-second Retry-After a 1 s window leaves every burst after a
 * reset ambiguous (ratelimit.threshold then repeats it); 2 s exercises the decisive path.
 */
export const SHORT = { limit: 10, windowMs: 2000 } as const;

/**
 * `count` demo clients (the reference server accepts any `client-…` ID with secret
 * `demo-secret`); a distinct `group` keeps concurrent runs against one server apart.
 */
export function demoClients(count: number, group = ''): string[] {
  return Array.from({ length: count }, (_, i) => `client-${group}${i + 1}:demo-secret`);
}

/** Flags-alone configuration against `server`, at the short contract unless told otherwise. */
export function configFor(server: Pick<RemoteServerHandle, 'url' | 'certPem'>, flags: VerifyFlags = {}): VerifyConfig {
  return resolveVerifyConfig(
    {
      client: demoClients(6),
      method: ['ping', 'echo'],
      paginated: ['items.list'],
      limit: SHORT.limit,
      window: SHORT.windowMs,
      ...flags,
    },
    null,
    server.url,
    server.certPem ?? null,
  );
}

/**
 * Verify runs at a time in one test process. Each run must be able to send faster than its
 * contract (over 10 requests a second per client): on a 2-core machine shared with other test
 * files, more at once starves them and they rightly say "the generator is the bottleneck".
 */
const MAX_CONCURRENT_RUNS = 3;
let running = 0;
const queue: (() => void)[] = [];

/** Run `work` when fewer than MAX_CONCURRENT_RUNS reference runs are under way in this test process. */
export async function slot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= MAX_CONCURRENT_RUNS) await new Promise<void>((resolve) => queue.push(resolve));
  running++;
  try {
    return await work();
  } finally {
    running--;
    queue.shift()?.();
  }
}

/** Skips in which the verifier says its own timing, not the server, made a check unjudgeable. */
const TOO_SLOW_HERE = /the generator, not the server, is the bottleneck|quota came back during every attempt/;

/** Where verifyReference starts its server. */
export interface ReferencePlacement {
  /**
   * In this process instead of a worker thread: no worker start (a worker loads the server from
   * source under vitest, which costs more CPU than a short verify's requests), the server sharing
   * the verifier's event loop.
   */
  readonly inProcess?: boolean;
}

/**
 * Start a reference server (in a worker thread: its own event loop, unless `inProcess`), verify it
 * from this one, close it. When the verifier reports that this machine was too slow to judge a
 * check (a busy CI box), the run is repeated once on a fresh server: the verdicts under test need
 * a fair chance.
 */
export async function verifyReference(
  options: ServerOptions,
  flags: VerifyFlags = {},
  { inProcess = false }: ReferencePlacement = {},
): Promise<VerifyReport> {
  let report: VerifyReport | undefined;
  for (
    let attempt = 0;
    attempt < 2 && (report === undefined || report.checks.some((c) => TOO_SLOW_HERE.test(c.detail)));
    attempt++
  ) {
    report = await slot(async () => {
      const server = await (inProcess ? startServer : startServerInWorker)({ ...SHORT, ...options });
      try {
        return await runVerify(configFor(server, flags));
      } finally {
        await server.close();
      }
    });
  }
  return report!;
}

/** id → verdict, for compact assertions. */
export function verdicts(checks: readonly CheckResult[]): Record<string, string> {
  return Object.fromEntries(checks.map((c) => [c.id, c.verdict]));
}

/** A skip must say why, and never hide a crash. */
export function expectReasonedSkips(checks: readonly CheckResult[]): string[] {
  return checks
    .filter((c) => c.verdict === 'skip' && (c.detail.trim().length < 10 || /internal error|interrupted/.test(c.detail)))
    .map((c) => `${c.id}: ${c.detail}`);
}
