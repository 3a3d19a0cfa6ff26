import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runSession } from '../../src/session/run-session.ts';
import { buildPlan } from '../../src/profile/build-plan.ts';
import { validateRunResult } from '../../src/result-file/validate-result.ts';
import { startServer } from '../../src/server/start-server.ts';
import type { ServerHandle } from '../../src/server/options.ts';
import type { LiveSnapshot } from '../../src/contract/live-snapshot.ts';
import { useTempDir } from '../support/temp-dir.ts';

let server: ServerHandle | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const dir = useTempDir('rpcload-workers-');

/** `rpcload run --workers N` as the CLI does it: each worker receives its share of the plan. */
async function runWithWorkers(
  profile: Record<string, unknown>,
  workers: number,
  signal = new AbortController().signal,
  seen: LiveSnapshot[] = [],
) {
  const plan = buildPlan(profile, { source: '' });
  return runSession({
    plan,
    outPath: join(dir, `${Math.random().toString(36).slice(2)}.json`),
    signal,
    workers,
    createView: (source) => {
      let timer: NodeJS.Timeout | undefined;
      return {
        start: () => void (timer = setInterval(() => seen.push(source.snapshot()), 100)),
        stop: () => clearInterval(timer),
      };
    },
  });
}

const ping = [{ name: 'ping', steps: [{ method: 'ping' }] }];

describe('rpcload run --workers', () => {
  it('splits clients and rate over workers, and the merged result equals the server’s counts', async () => {
    server = await startServer({ limit: 10_000 });
    const profile = {
      target: server.url,
      clients: { pattern: 'client-{n}', count: 4, secret: 'demo-secret' },
      scenarios: ping,
      phases: [{ duration: '2s', rate: 200 }],
    };
    const snapshots: LiveSnapshot[] = [];
    const { result } = await runWithWorkers(profile, 2, undefined, snapshots);
    expect(validateRunResult(result)).toEqual([]);
    expect(result.run).toMatchObject({ status: 'completed', workers: 2 });
    expect(result.summary.outcomes).toEqual({ success: 400 }); // 2 × 100/s × 2 s, nothing lost
    expect(result.summary.scheduleLagMs).not.toBeNull();
    const serverSide = server.stats().byClient;
    for (const [id, client] of Object.entries(result.rateLimit!.clients))
      expect({ admitted: client.admitted, refused: client.refused }).toEqual(serverSide[id]);
    expect(Object.keys(result.byClient).sort()).toEqual(['client-1', 'client-2', 'client-3', 'client-4']);
    // exemplars come merged from both workers (each with its own trace-id stream: no id twice)
    const exemplars = result.exemplars!.ping!;
    expect(exemplars.filter((e) => e.kinds.includes('slowest'))).toHaveLength(10);
    expect(new Set(exemplars.map((e) => e.traceId)).size).toBe(exemplars.length);
    expect(exemplars.every((e) => e.sent && e.outcome === 'success' && /^[0-9a-f]{32}$/.test(e.traceId))).toBe(true);
    // the live view saw both workers' traffic, client rows in the run's order
    const last = snapshots.at(-1)!;
    expect(last.requests).toBeGreaterThan(200);
    expect(last.clients.map((c) => c.id)).toEqual(['client-1', 'client-2', 'client-3', 'client-4']);
  });

  it('stops every worker gracefully on abort and keeps their data', async () => {
    server = await startServer({ limit: 10_000 });
    const profile = {
      target: server.url,
      clients: { pattern: 'client-{n}', count: 2, secret: 'demo-secret' },
      scenarios: ping,
      phases: [{ duration: '30s', concurrency: 4 }],
    };
    const abort = new AbortController();
    const snapshots: LiveSnapshot[] = [];
    const running = runWithWorkers(profile, 2, abort.signal, snapshots);
    const started = Date.now();
    // Abort once both workers are sending (their start-up under tsx takes a moment).
    while (!(snapshots.at(-1)?.clients.every((c) => c.sent > 0) ?? false) && Date.now() - started < 20_000)
      await new Promise((r) => setTimeout(r, 50));
    abort.abort();
    const { result } = await running;
    expect(result.run).toMatchObject({ status: 'aborted', workers: 2 });
    expect(Date.now() - started).toBeLessThan(25_000);
    const served = Object.values(server.stats().byClient).reduce((sum, c) => sum + c.admitted + c.refused, 0);
    expect(result.summary.requests).toBe(served); // every answered request is in the result
    expect(Object.values(result.rateLimit!.clients).every((c) => c.sent > 0)).toBe(true);
  });
});
