import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BuildResultInput } from '../../src/session/result/build-result.ts';
import { startCheckpoints, type CheckpointWriter } from '../../src/session/result/checkpoint-writer.ts';
import { useTempDir } from '../support/temp-dir.ts';

const dir = useTempDir('rpcload-checkpoints-');
const EVERY_MS = 40;

/** A writer that notes when it was started, each write and its close, and writes nothing. */
function countingWriter() {
  const events: string[] = [];
  const start = (): CheckpointWriter => {
    events.push('started');
    return {
      write: () => {
        events.push('written');
        return Promise.resolve();
      },
      close: () => {
        events.push('closed');
        return Promise.resolve();
      },
    };
  };
  return { events, start };
}

const input = () => Promise.resolve({} as BuildResultInput);

/** Checkpoints every EVERY_MS into `name`, for a load planned to last `plannedMs`, started by `startWriter`. */
function checkpointsOf(name: string, plannedMs: number, startWriter: () => CheckpointWriter, due = () => true) {
  return startCheckpoints({ path: join(dir, name), everyMs: EVERY_MS, plannedMs, due, input, startWriter });
}
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Until `events` holds a write (a starved machine fires the interval late), for at most 10 s. */
async function untilWritten(events: readonly string[]): Promise<void> {
  for (let waited = 0; !events.includes('written') && waited < 10_000; waited += 10) await wait(10);
}

describe('startCheckpoints', () => {
  it('starts the writer at once when the load is planned to outlast the interval, before any checkpoint is due', async () => {
    const { events, start } = countingWriter();
    let due = false;
    const checkpoints = checkpointsOf('long.json', EVERY_MS * 100, start, () => due);
    expect(events).toEqual(['started']);
    due = true; // the load's clock starts
    await untilWritten(events);
    await checkpoints.stop();
    expect(events[0]).toBe('started');
    expect(events.filter((e) => e === 'started')).toHaveLength(1);
    expect(events.filter((e) => e === 'written').length).toBeGreaterThanOrEqual(1);
    expect(events.at(-1)).toBe('closed');
    expect(checkpoints.problem()).toBeNull();
  });

  it('starts it at the first checkpoint for a shorter load, and never for one that ends first', async () => {
    for (const plannedMs of [EVERY_MS, 0]) {
      const { events, start } = countingWriter();
      const checkpoints = checkpointsOf('short.json', plannedMs, start);
      expect(events).toEqual([]);
      await untilWritten(events);
      await checkpoints.stop();
      expect(events.slice(0, 2)).toEqual(['started', 'written']);

      const unused = countingWriter();
      const none = checkpointsOf('none.json', plannedMs, unused.start);
      await none.stop();
      expect(unused.events).toEqual([]);
    }
  });

  it('keeps a writer that cannot start as the problem, and tries again at the first checkpoint', async () => {
    const { events, start } = countingWriter();
    let attempts = 0;
    const checkpoints = checkpointsOf('refused.json', EVERY_MS * 100, () => {
      if (attempts++ === 0) throw new Error('no thread for you');
      return start();
    });
    expect(checkpoints.problem()).toBe('a checkpoint of the result file could not be written: no thread for you');
    await untilWritten(events);
    await checkpoints.stop();
    expect(events.slice(0, 2)).toEqual(['started', 'written']);
  });
});
