/**
 * The bounded read-ahead under the replay's calls and the data sets' rows: the reader pauses at
 * `high` and reads on only at `low`; taking compacts the buffer, so it holds a bounded number of
 * slots however many items pass; `ready` resolves when the buffer is first full, when the reader
 * ends, or when the read-ahead is closed; closing releases a paused reader and stops it.
 */
import { describe, expect, it } from 'vitest';
import { ReadAhead } from '../../src/driver/read-ahead.ts';

/** Let every pending microtask and I/O callback run (a reader released by `take` pushes meanwhile). */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A reader that pushes 0, 1, 2 … up to `count` as fast as the read-ahead lets it, then ends. */
function startReader(readAhead: ReadAhead<number>, count: number): { pushed: () => number; done: Promise<void> } {
  let next = 0;
  const done = (async () => {
    while (next < count && !readAhead.closed) {
      readAhead.push(next++);
      readAhead.announce();
      if (readAhead.full) await readAhead.room();
    }
    readAhead.end();
  })();
  return { pushed: () => next, done };
}

/** Whether the promise has resolved by now. */
async function isResolved(promise: Promise<unknown>): Promise<boolean> {
  let resolved = false;
  void promise.then(() => (resolved = true));
  await settle();
  return resolved;
}

describe('ReadAhead', () => {
  it('holds the reader at high and lets it read on only once the consumer is down to low', async () => {
    const readAhead = new ReadAhead<number>({ high: 8, low: 2 });
    const reader = startReader(readAhead, 100);
    await readAhead.ready;
    expect(readAhead.buffered).toBe(8);
    expect(reader.pushed()).toBe(8);
    for (let i = 0; i < 5; i++) expect(readAhead.take()).toBe(i);
    await settle();
    expect(readAhead.buffered).toBe(3); // above low: the reader still waits
    expect(reader.pushed()).toBe(8);
    expect(readAhead.take()).toBe(5);
    await settle();
    expect(readAhead.buffered).toBe(8); // at low: it read up to high again, and no further
    expect(reader.pushed()).toBe(14);
  });

  it('hands over every item in order, holding a bounded number of slots however many pass (compaction)', async () => {
    const readAhead = new ReadAhead<number>({ high: 64, low: 16 });
    const reader = startReader(readAhead, 10_000);
    const taken: number[] = [];
    let mostSlots = 0;
    while (!readAhead.exhausted) {
      const item = readAhead.take();
      if (item === undefined) await settle();
      else taken.push(item);
      mostSlots = Math.max(mostSlots, readAhead.heldSlots);
    }
    await reader.done;
    expect(taken).toEqual(Array.from({ length: 10_000 }, (_, i) => i));
    expect(mostSlots).toBeLessThanOrEqual(2 * 64);
    expect(readAhead.heldSlots).toBeLessThan(64);
  });

  it('gives an item back to be taken next, before and after a compaction', () => {
    const readAhead = new ReadAhead<string>({ high: 2, low: 1 });
    for (const item of ['a', 'b', 'c']) readAhead.push(item);
    expect(readAhead.take()).toBe('a');
    readAhead.giveBack('a');
    expect(readAhead.peek()).toBe('a');
    expect([readAhead.take(), readAhead.take()]).toEqual(['a', 'b']); // the head reached high: compacted
    readAhead.giveBack('b');
    expect([readAhead.take(), readAhead.take(), readAhead.take()]).toEqual(['b', 'c', undefined]);
  });

  it.each([
    ['the buffer is first full', (r: ReadAhead<number>) => [1, 2, 3].forEach((n) => r.push(n)), 3],
    ['the reader ends with fewer items', (r: ReadAhead<number>) => (r.push(1), r.end()), 1],
    ['it is closed before any item', (r: ReadAhead<number>) => r.close(), 0],
  ])('is ready once %s', async (_, act, buffered) => {
    const readAhead = new ReadAhead<number>({ high: 3, low: 1 });
    readAhead.push(0);
    readAhead.take();
    expect(await isResolved(readAhead.ready)).toBe(false);
    act(readAhead);
    expect(await isResolved(readAhead.ready)).toBe(true);
    expect(readAhead.buffered).toBe(buffered);
  });

  it('tells a waiting consumer once when items come or the reader ends, and says when it is exhausted', () => {
    const readAhead = new ReadAhead<number>({ high: 4, low: 1 });
    let told = 0;
    readAhead.whenMore(() => told++);
    readAhead.push(7);
    readAhead.announce();
    readAhead.announce();
    expect(told).toBe(1);
    expect(readAhead.exhausted).toBe(false);
    readAhead.whenMore(() => told++);
    readAhead.end();
    expect(told).toBe(2);
    expect(readAhead.exhausted).toBe(false); // ended, one item still buffered
    expect(readAhead.take()).toBe(7);
    expect(readAhead.exhausted).toBe(true);
  });

  it('releases a reader paused at high when closed, and stops it; a listener is dropped', async () => {
    const readAhead = new ReadAhead<number>({ high: 4, low: 1 });
    const reader = startReader(readAhead, 1000);
    await readAhead.ready;
    let told = false;
    readAhead.whenMore(() => (told = true));
    readAhead.close();
    await reader.done;
    expect(reader.pushed()).toBe(4);
    expect(readAhead.closed).toBe(true);
    expect(told).toBe(false);
    expect(await isResolved(readAhead.room())).toBe(true); // a full, closed read-ahead never holds its reader
  });
});
