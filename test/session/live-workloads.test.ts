import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveLoadGauges, LiveSnapshot } from '../../src/contract/live-snapshot.ts';
import type { RunHeader } from '../../src/contract/live-view.ts';
import { buildPlan } from '../../src/profile/build-plan.ts';
import { prepareReplays } from '../../src/profile/replay-plan.ts';
import type { ServerHandle } from '../../src/server/options.ts';
import { startServer } from '../../src/server/start-server.ts';
import { runSession } from '../../src/session/run-session.ts';
import { useTempDir } from '../support/temp-dir.ts';

const dir = useTempDir('rpcload-live-workloads-');
let server: ServerHandle;
beforeAll(async () => {
  server = await startServer({ limit: 100_000 });
});
afterAll(() => server.close());

/** What a live view pulled: the header, and each frame's snapshot and gauges. */
interface Seen {
  header: RunHeader | null;
  frames: { snapshot: LiveSnapshot; gauges: LiveLoadGauges | null }[];
}

/** Three workloads side by side: a rate, a concurrency, and a recording at 2× (40 calls/s) from 0.5 s. */
function threeWorkloads(): Record<string, unknown> {
  const recording = join(dir, 'rec.jsonl');
  // 40 calls over 2 s at speed 1: 20 calls/s, 40/s at 2×; the window's pass lasts 1 s at 2×.
  const calls = Array.from({ length: 40 }, (_, i) => ({
    t: i * 50,
    client: `client-${1 + (i % 2)}`,
    method: 'ping',
    args: {},
  }));
  writeFileSync(recording, calls.map((c) => JSON.stringify(c)).join('\n') + '\n');
  return {
    target: server.url,
    clients: { pattern: 'client-{n}', count: 4, secret: 'demo-secret' },
    scenarios: [{ name: 'ping', steps: [{ method: 'ping' }] }],
    workloads: [
      {
        name: 'browse',
        clients: ['client-1', 'client-2'],
        scenarios: ['ping'],
        phases: [{ duration: '2s', rate: 30 }],
      },
      {
        name: 'orders',
        clients: ['client-3', 'client-4'],
        scenarios: ['ping'],
        phases: [{ duration: '2s', concurrency: 1 }],
      },
      { name: 'recorded', replay: { file: recording, speed: 2 }, startAfter: '500ms' },
    ],
    thresholds: ['p99 < 5s'],
  };
}

async function runSeen(profile: Record<string, unknown>, workers: number): Promise<Seen> {
  const plan = await prepareReplays(buildPlan(profile, { source: join(dir, 'profile.json') }));
  const seen: Seen = { header: null, frames: [] };
  await runSession({
    plan,
    workers,
    outPath: join(dir, `${Math.random().toString(36).slice(2)}.json`),
    signal: new AbortController().signal,
    createView: (source) => {
      seen.header = source.header;
      let timer: NodeJS.Timeout | undefined;
      const pull = (): number => seen.frames.push({ snapshot: source.snapshot(), gauges: source.gauges?.() ?? null });
      return { start: () => void (timer = setInterval(pull, 100)), stop: () => clearInterval(timer) };
    },
  });
  return seen;
}

describe('the live view of a run with several workloads', () => {
  it.each([1, 2])(
    'gets a row per workload and each one’s offered rate and replay progress (--workers %d)',
    async (workers) => {
      const seen = await runSeen(threeWorkloads(), workers);
      expect(seen.header!.workloads).toEqual([
        { name: 'browse', load: 'rate 30/s', open: true, startMs: 0, endMs: 2000 },
        { name: 'orders', load: 'concurrency 1', open: false, startMs: 0, endMs: 2000 },
        {
          name: 'recorded',
          load: 'replay ×2',
          open: true,
          startMs: 500,
          endMs: expect.any(Number) as number,
          replay: {
            fileName: 'rec.jsonl',
            speed: 2,
            loop: false,
            callsInWindow: 40,
            maxCalls: null,
            passMs: expect.any(Number) as number,
          },
        },
      ]);
      expect(seen.header!.goodputBoundMs).toBe(5000);
      // Mid-run (1.2 s in: every workload playing, the replay for 0.7 s of its 1 s), each workload
      // offers its own rate, the workers' shares summed.
      const mid = seen.frames.find((f) => f.snapshot.elapsedMs >= 1200 && f.gauges !== null)!;
      expect(mid.gauges!.offeredPerS[0]).toBeCloseTo(30, 5);
      expect(mid.gauges!.offeredPerS[1]).toBe(0); // a closed model offers no arrival rate
      expect(mid.gauges!.offeredPerS[2]).toBeGreaterThan(10); // ~28 due in the last second; a loaded machine releases late
      expect(mid.gauges!.offeredPerS[2]).toBeLessThan(60);
      expect(mid.gauges!.replayReleased[0]).toBe(0);
      expect(mid.gauges!.replayReleased[2]).toBeGreaterThan(0);
      // At the end: the whole recording released, every workload's traffic in its own row.
      const last = seen.frames.at(-1)!;
      expect(last.gauges!.replayReleased).toEqual([0, 0, 40]);
      const rows = Object.fromEntries(last.snapshot.workloads.map((w) => [w.name, w]));
      expect(Object.keys(rows)).toEqual(['browse', 'orders', 'recorded']);
      expect(rows.browse!.requests).toBeGreaterThan(40);
      expect(rows.orders!.requests).toBeGreaterThan(10);
      expect(rows.recorded!.requests).toBe(40);
      expect(rows.recorded!.scheduleLagP99Ms).not.toBeNull();
      expect(rows.orders!.scheduleLagP99Ms).toBeNull();
      for (const row of Object.values(rows)) {
        expect(row.goodput).toBe(row.success);
        expect(row.latencyMs.p99).toBeGreaterThan(0);
      }
      expect(last.snapshot.requests).toBe(rows.browse!.requests + rows.orders!.requests + rows.recorded!.requests);
    },
  );
});
