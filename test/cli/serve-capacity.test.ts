import { describe, expect, it } from 'vitest';
import { serveWhile } from '../support/serve-process.ts';
import { call, tokenFor } from '../support/server-helpers.ts';

describe('rpcload serve --capacity', () => {
  it('serves at most its capacity and sheds past its queue bound with 503 server_busy', async () => {
    const args = ['--capacity', '100/s', '--capacity-workers', '1', '--max-queue', '30ms', '--limit', '1000'];
    const result = await serveWhile(args, async (url) => {
      const token = await tokenFor(url, 'client-1');
      const started = performance.now();
      const answers = await Promise.all(Array.from({ length: 60 }, () => call(url, 'ping', token)));
      const elapsedMs = performance.now() - started;
      const served = answers.filter((a) => a.status === 200).length;
      const busy = answers.filter((a) => a.status === 503);
      // One worker of 10 ms with a 30 ms queue: never more than one call per 10 ms (plus the queue's
      // three) however the burst arrives, and what cannot wait is refused.
      expect(served).toBeLessThanOrEqual(Math.ceil(elapsedMs / 10) + 4);
      expect(served + busy.length).toBe(60);
      expect(busy.length).toBeGreaterThan(0);
      expect(busy[0]!.json).toEqual({ status: 'error', error: 'server_busy' });
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('service capacity 100/s (1 workers, FIFO queue, shedding past 30ms)');
  });
});
