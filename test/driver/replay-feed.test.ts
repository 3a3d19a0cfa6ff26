// test-pass: quiet
/**
 * The replay's read-ahead: the recording is read before the run's clock starts (up to the bound,
 * or the whole window when smaller), so the first calls — due at once — go out on time; the bound
 * holds whatever the recording's size; a loop's later passes of a window that fits the read-ahead
 * come from memory, so its wrap reads nothing. The file is removed at the clock's start (or once
 * the feed is ready) to prove what was read before: a reader that began with the clock finds none.
 */
import { unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_HIGH, ReplayFeed, type QueuedCall } from '../../src/driver/replay-feed.ts';
import type { Plan } from '../../src/profile/plan.ts';
import { prepareReplay } from '../../src/profile/replay-plan.ts';
import type { ReplaySettings } from '../../src/profile/replay-settings.ts';
import { startLoggingApi } from '../support/logging-api.ts';
import { runPlan, testPlan } from '../support/load-run.ts';
import { useTempDir } from '../support/temp-dir.ts';

const dir = useTempDir('rpcload-replay-feed-');

let api: Awaited<ReturnType<typeof startLoggingApi>>;
beforeAll(async () => (api = await startLoggingApi()));
afterAll(() => api.close());

/** Write a JSONL recording of `count` calls `gapMs` apart, alternating client-1 and client-2; returns its path. */
function recording(name: string, count: number, gapMs: number): string {
  const path = join(dir, name);
  const lines = Array.from({ length: count }, (_, seq) =>
    JSON.stringify({ t: seq * gapMs, client: `client-${(seq % 2) + 1}`, method: 'ping', args: { seq } }),
  );
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** The plan of a replay of `file` (the test clients client-1 and client-2) aimed at `target`. */
function replayPlan(target: string, file: string, settings: Partial<ReplaySettings> = {}): Promise<Plan> {
  const plan = testPlan(
    { scenarios: [{ name: 'ping', steps: [{ method: 'ping' }] }], phases: [{ duration: '1s', rate: 1 }] },
    target,
  );
  return prepareReplay(plan, 0, {
    file,
    speed: 1,
    loop: false,
    from: null,
    to: null,
    maxCalls: null,
    mapClients: false,
    durationMs: null,
    host: null,
    ...settings,
  });
}

/** A feed of the plan's only phase. */
function feedOf(plan: Plan): ReplayFeed {
  return new ReplayFeed({
    replay: plan.workloads[0]!.replay!,
    clients: plan.clients,
    tokenMethod: plan.auth.tokenMethod,
    durationMs: plan.phases[0]!.durationMs,
    notice: (text) => expect.fail(`unexpected notice: ${text}`),
  });
}

/** The feed stopped reading at its bound (it checks it after each read: one read's calls, a 64 KB chunk, may pass it). */
function expectFull(feed: ReplayFeed): void {
  expect(feed.buffered).toBeGreaterThanOrEqual(QUEUE_HIGH);
  expect(feed.buffered).toBeLessThan(QUEUE_HIGH + 2000);
}

/** Take every call the feed hands over until it is exhausted (waiting for it when it is reading). */
async function drain(feed: ReplayFeed): Promise<QueuedCall[]> {
  const calls: QueuedCall[] = [];
  while (!feed.exhausted) {
    if (feed.peek() === undefined) await new Promise<void>((resolve) => feed.whenMore(resolve));
    else calls.push(feed.take());
  }
  return calls;
}

describe('replay read-ahead', () => {
  it('reads the window before the clock starts: its first calls (t = 0…50 ms) reach the server on time (±25 ms)', async () => {
    api.arrivals.length = 0;
    const file = recording('start.jsonl', 11, 5);
    const plan = await replayPlan(api.url, file);
    let clockStartMs = Number.NaN;
    // Stalls of this process's event loop (not waits for the disk, which do not stall it) while the clock runs.
    const stalls = monitorEventLoopDelay({ resolution: 1 });
    const { result } = await runPlan(plan, api.url, undefined, (clock) => {
      clock.start();
      clockStartMs = performance.now();
      stalls.enable();
      // Whatever is not read by now is never read: the replay must already hold its calls.
      unlinkSync(file);
    });
    stalls.disable();
    expect(result.summary.requests).toBe(11);
    expect(api.arrivals.map((a) => a.args.seq as number).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 11 }, (_, i) => i),
    );
    for (const arrival of api.arrivals) expect(arrival.client).toBe(`client-${((arrival.args.seq as number) % 2) + 1}`);
    // Each call at its recorded offset from the clock's start, as the server saw it and as the run recorded it.
    const lateMs = api.arrivals.map((a) => a.atMs - clockStartMs - (a.args.seq as number) * 5);
    expect(Math.min(...lateMs)).toBeGreaterThanOrEqual(0);
    // Judged when this process had the CPU: the server shares its event loop, and on a machine busy
    // enough to stall that loop for 15 ms (other processes, a GC), any call may be as late as the stall.
    const stallMs = stalls.max / 1e6;
    if (stallMs > 15) {
      console.warn(`replay start timing not judged: the event loop stalled ${stallMs.toFixed(0)} ms (a busy machine)`);
      return;
    }
    expect(Math.max(...lateMs)).toBeLessThan(25);
    expect(result.summary.scheduleLagMs!.max).toBeLessThan(25);
  });

  it('holds at most its bound of calls, not the recording, and hands over every call in order', async () => {
    const count = QUEUE_HIGH * 2 + 100;
    const plan = await replayPlan(api.url, recording('large.jsonl', count, 1));
    const feed = feedOf(plan);
    await feed.ready;
    expectFull(feed);
    const calls = await drain(feed);
    expect(calls).toHaveLength(count);
    expect(
      calls.map((call) => JSON.parse(call.body.toString()) as { seq: number }).every(({ seq }, i) => seq === i),
    ).toBe(true);
    expect(calls.at(-1)!.dueOffsetMs).toBe(count - 1);
  });

  it('loops a window that fits the read-ahead from memory: the wrap reads nothing of the file', async () => {
    // 100 calls 1 ms apart, looped for 20 s at 1×: 200 passes, 20,000 calls, more than the bound holds at once.
    const file = recording('loop.jsonl', 100, 1);
    const plan = await replayPlan(api.url, file, { loop: true, durationMs: 20_000 });
    const feed = feedOf(plan);
    await feed.ready;
    expectFull(feed);
    unlinkSync(file);
    const calls = await drain(feed);
    expect(calls).toHaveLength(20_000);
    // Pass after pass, each call 100 ms (one pass) after the same call of the pass before.
    expect(calls.every((call, i) => call.dueOffsetMs === Math.floor(i / 100) * 100 + (i % 100))).toBe(true);
  });
});
