/**
 * Whatever the lengths of a recording's lines (some spanning several 64 KiB read chunks), wherever
 * its window starts, whether its `t` are ms or ISO 8601 instants and whether it opens with a byte
 * order mark, the replay's read-ahead hands over every call of the window, in file order, each due
 * at its recorded offset from the window's start.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ReplayFeed, type QueuedCall } from '../../src/driver/replay-feed.ts';
import { prepareReplay } from '../../src/profile/replay-plan.ts';
import { testPlan } from '../support/load-run.ts';
import { useTempDir } from '../support/temp-dir.ts';

const dir = useTempDir('rpcload-replay-window-');
const GAP_MS = 10;
const ORIGIN_MS = Date.parse('2026-03-10T14:00:00.000Z');

/** Every call the feed hands over until it is exhausted. */
async function drain(feed: ReplayFeed): Promise<QueuedCall[]> {
  const calls: QueuedCall[] = [];
  while (!feed.exhausted) {
    if (feed.peek() === undefined) await new Promise<void>((resolve) => feed.whenMore(resolve));
    else calls.push(feed.take());
  }
  return calls;
}

/** Padding sizes: mostly short lines, some of one to almost five read chunks. */
const padding = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 300 }) },
  { weight: 1, arbitrary: fc.integer({ min: 60_000, max: 300_000 }) },
);

describe('the replay window (property)', () => {
  it('reads every call of the window, in order, at its offset', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(padding, { minLength: 1, maxLength: 10 }),
        fc.nat(),
        fc.boolean(),
        fc.boolean(),
        async (pads, pick, instants, bom) => {
          const file = join(dir, `window-${run++}.jsonl`);
          const lines = pads.map((size, seq) => {
            const t = instants ? new Date(ORIGIN_MS + seq * GAP_MS).toISOString() : seq * GAP_MS;
            return JSON.stringify({ t, client: 'client-1', method: 'ping', args: { seq, pad: 'x'.repeat(size) } });
          });
          writeFileSync(file, `${bom ? '\uFEFF' : ''}${lines.join('\n')}\n`);
          const first = pick % pads.length;
          const plan = testPlan(
            { scenarios: [{ name: 'ping', steps: [{ method: 'ping' }] }], phases: [{ duration: '1s', rate: 1 }] },
            'http://127.0.0.1:9',
          );
          const replay = await prepareReplay(plan, {
            file,
            speed: 1,
            loop: false,
            from: `${first * GAP_MS}ms`,
            to: null,
            maxCalls: null,
            mapClients: false,
            durationMs: null,
            host: null,
          });
          const feed = new ReplayFeed({
            replay: replay.replay!,
            clients: replay.clients,
            tokenMethod: replay.auth.tokenMethod,
            durationMs: replay.phases[0]!.durationMs,
            notice: (text) => expect.fail(`unexpected notice: ${text}`),
          });
          const calls = await drain(feed);
          expect(calls.map((call) => (JSON.parse(call.body.toString()) as { seq: number }).seq)).toEqual(
            Array.from({ length: pads.length - first }, (_, i) => first + i),
          );
          expect(calls.map((call) => call.dueOffsetMs)).toEqual(calls.map((_, i) => i * GAP_MS));
        },
      ),
      { numRuns: 40 },
    );
  });
});
