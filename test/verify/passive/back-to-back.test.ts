/**
 * Steps run back to back with the same client IDs (a nightly job: verify, then a run, then a
 * capacity search): the window a step starts in may still hold the previous step's requests, which
 * its own traffic never saw. Against the reference server's conformant limiters the passive
 * `ratelimit.threshold` of the second step never fails; against a limiter that admits one too
 * many it still does. Real servers, real requests, 10 per 2 s. The servers run in this process: at
 * 15 requests a second a worker thread (which loads the server from source) costs more CPU than
 * the load it would keep off this event loop.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CheckResult } from '../../../src/contract/result-schema.ts';
import type { LimiterAlgorithm, ServerHandle, ServerOptions } from '../../../src/server/options.ts';
import { startServer } from '../../../src/server/start-server.ts';
import { capacitySession } from '../../../src/session/capacity/capacity-session.ts';
import { runVerify } from '../../../src/verify/runner.ts';
import { runPlan, testPlan } from '../../support/load-run.ts';
import { useTempDir } from '../../support/temp-dir.ts';
import { configFor, demoClients, SHORT, slot } from '../../support/verify-reference.ts';

const dir = useTempDir('rpcload-back-to-back-');
const WINDOW = `${SHORT.windowMs}ms`;

/** The demo-like load of the passive tests: `client-<group>1` gets 10 of 12 arrivals, 2.5 × its quota. */
function loadProfile(group: string, durationMs: number, ratePerS = (3 * SHORT.limit * 1000) / SHORT.windowMs) {
  return {
    name: `back-to-back-${group}`,
    clients: { pattern: `client-${group}{n}`, count: 3, secret: '${SECRET}', weights: { [`client-${group}1`]: 10 } },
    scenarios: [{ name: 'ping', steps: [{ method: 'ping' }] }],
    phases: [{ name: 'load', duration: `${durationMs}ms`, rate: ratePerS }],
    rateLimit: { limit: SHORT.limit, window: WINDOW, on429: 'honour' },
  };
}

/** What the second step read, with its own per-client counts where its result has them (a run's; a capacity search's has none). */
interface StepReading {
  readonly checks: readonly CheckResult[];
  readonly counted: Readonly<Record<string, { admitted: number; refused: number }>> | null;
}

const loadRun = async (server: ServerHandle, group: string, durationMs: number, ratePerS?: number) => {
  const { result } = await runPlan(testPlan(loadProfile(group, durationMs, ratePerS), server.url), server.url);
  return { checks: result.checks, counted: result.rateLimit?.clients ?? null } satisfies StepReading;
};

/** A capacity search past the quotas (429s count as answers): every step is refused, each right after the last. */
async function capacitySearch(server: ServerHandle, group: string): Promise<StepReading> {
  const plan = testPlan(
    {
      ...loadProfile(group, 1000),
      capacity: {
        start: 12,
        factor: 1.5,
        warmUp: '0s',
        hold: '2s',
        confirm: '0s',
        maxSteps: 2,
        maxLag: '1s',
        include429: true,
      },
    },
    server.url,
  );
  const out = await capacitySession({
    plan,
    outPath: join(dir, `${group}.json`),
    signal: new AbortController().signal,
  });
  return { checks: out.result.checks, counted: null };
}

const verifyThreshold = async (server: ServerHandle, group: string): Promise<void> => {
  await runVerify(configFor(server, { client: demoClients(6, group), only: 'ratelimit.threshold' }));
};

const thresholdOf = (checks: readonly CheckResult[]): CheckResult =>
  checks.find((c) => c.id === 'ratelimit.threshold')!;
const explain = (c: CheckResult): string => `${c.verdict}: ${c.detail} ${JSON.stringify(c.evidence)}`;

async function withServer<T>(options: ServerOptions, work: (server: ServerHandle) => Promise<T>): Promise<T> {
  return slot(async () => {
    const server = await startServer({ ...SHORT, ...options });
    try {
      return await work(server);
    } finally {
      await server.close();
    }
  });
}

type Step = (server: ServerHandle, group: string) => Promise<unknown>;

const STEPS_PAIRS: [string, Step, (server: ServerHandle, group: string) => Promise<StepReading>][] = [
  // Half the quota just before: the next run's first window is refused after 5 of its own.
  [
    'run → run',
    (server, group) => loadRun(server, group, 1000, 5),
    (server, group) => loadRun(server, group, 2 * SHORT.windowMs),
  ],
  ['run → capacity', (server, group) => loadRun(server, group, 1000, 5), capacitySearch],
  // verify leaves its clients refused: the run's first requests are refused before any is admitted.
  ['verify → run', verifyThreshold, (server, group) => loadRun(server, group, 2 * SHORT.windowMs)],
];

/** The server's own admitted/refused counts of the group's clients. */
function serverCounts(server: ServerHandle, group: string): Record<string, { admitted: number; refused: number }> {
  const byClient = server.stats().byClient;
  return Object.fromEntries(Object.entries(byClient).filter(([id]) => id.startsWith(`client-${group}`)));
}

/** What the server counted for each client between two of its counts (clients it counted nothing for left out). */
function countedBetween(
  before: Record<string, { admitted: number; refused: number }>,
  after: Record<string, { admitted: number; refused: number }>,
): Record<string, { admitted: number; refused: number }> {
  return Object.fromEntries(
    Object.entries(after)
      .map(
        ([id, c]) =>
          [
            id,
            { admitted: c.admitted - (before[id]?.admitted ?? 0), refused: c.refused - (before[id]?.refused ?? 0) },
          ] as const,
      )
      .filter(([, c]) => c.admitted + c.refused > 0),
  );
}

const CONFORMANT: LimiterAlgorithm[] = ['fixed', 'fixed-aligned', 'sliding'];

/**
 * One server per conformant limiter, shared by its step pairs: each pair has client IDs of its own
 * and the limiters count per client ID, so a pair sees the same server as alone, for one worker
 * start instead of three.
 */
const sharedServers = new Map<LimiterAlgorithm, Promise<ServerHandle>>();
function sharedServer(algorithm: LimiterAlgorithm): Promise<ServerHandle> {
  let server = sharedServers.get(algorithm);
  if (server === undefined) sharedServers.set(algorithm, (server = startServer({ ...SHORT, algorithm })));
  return server;
}
afterAll(() => Promise.all([...sharedServers.values()].map(async (server) => (await server).close())));

describe.concurrent('back-to-back steps with the same client IDs (10 per 2 s)', { timeout: 120_000 }, () => {
  it.each(
    CONFORMANT.flatMap((algorithm) =>
      STEPS_PAIRS.map(([name, first, second]) => [algorithm, name, first, second] as const),
    ),
  )('%s limiter, %s: the second step’s ratelimit.threshold does not fail', async (algorithm, name, first, second) => {
    // Client IDs of its own on the shared server (fixed and fixed-aligned would both start "fix").
    const group = `${algorithm.replace(/(\w)\w*-?/g, '$1')}${name.replace(/\W/g, '').slice(0, 6)}-`;
    const server = await sharedServer(algorithm);
    const { reading, counted } = await slot(async () => {
      await first(server, group);
      const before = serverCounts(server, group);
      const reading = await second(server, group);
      return { reading, counted: countedBetween(before, serverCounts(server, group)) };
    });
    const threshold = thresholdOf(reading.checks);
    const why = `${explain(threshold)} server counted ${JSON.stringify(counted)}`;
    // The run's figures are the server's own: each client's admitted and refused requests.
    if (reading.counted !== null) {
      const runCounted = Object.fromEntries(
        Object.entries(reading.counted)
          .filter(([, c]) => c.admitted + c.refused > 0)
          .map(([id, c]) => [id, { admitted: c.admitted, refused: c.refused }]),
      );
      expect(runCounted, why).toEqual(counted);
    }
    expect(threshold.verdict, why).not.toBe('fail');
    // A window refused early because it may have begun before the run is not judged, and the
    // line says why.
    if ((threshold.evidence as { beforeRun?: number }).beforeRun! > 0) {
      expect(threshold.detail, explain(threshold)).toMatch(/may have begun before the run/);
    }
  });

  it('a limiter that admits one too many still fails the run after an earlier one', async () => {
    const threshold = thresholdOf(
      await withServer({ faults: ['limit-plus-one'] }, async (server) => {
        await loadRun(server, 'plus-', 1000, 5);
        return (await loadRun(server, 'plus-', 5 * SHORT.windowMs)).checks;
      }),
    );
    expect(threshold.verdict, explain(threshold)).toBe('fail');
    expect(threshold.detail).toMatch(/11/);
  });
});
