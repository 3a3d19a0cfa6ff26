import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cancelThreadWake, threadWake, type ThreadWake } from '../../src/util/wake-thread.ts';
import { wakeSoon } from '../../src/util/timers.ts';

/** The helper thread's lead never exceeds this: a wake may come this much before its instant, no more. */
const MAX_LEAD_MS = 1;

/** Ask for wakes until the helper thread takes them (it starts after enough demand); cancel the probes. */
async function helperReady(): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (performance.now() < deadline) {
    const probe = threadWake(50, () => {});
    if (probe !== null) return cancelThreadWake(probe);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('the wake thread did not start within 10 s');
}

describe('the wake thread', () => {
  it('fires each pending wake once, in the order of their instants, never more than its lead early; a cancelled one never', async () => {
    await helperReady();
    const fired: { index: number; atMs: number; wake: ThreadWake; firedMs: number }[] = [];
    const pending: { index: number; wake: ThreadWake }[] = [];
    for (let index = 0; index < 300; index++) {
      // Spread over 5–80 ms, in no order, so the heap reorders them.
      const waitMs = 5 + ((index * 37) % 75) + (index % 7) / 10;
      // The instant as this test's clock puts it, read before the call (the wake's own is a little later).
      const atMs = performance.now() + waitMs;
      const wake: ThreadWake | null = threadWake(waitMs, () =>
        fired.push({ index, atMs, wake: wake!, firedMs: performance.now() }),
      );
      expect(wake).not.toBeNull();
      pending.push({ index, wake: wake! });
    }
    const cancelled = new Set(pending.filter((p) => p.index % 3 === 0).map((p) => p.index));
    for (const p of pending) if (cancelled.has(p.index)) cancelThreadWake(p.wake);
    await new Promise((resolve) => setTimeout(resolve, 150));

    expect(fired.map((f) => f.index).sort((a, b) => a - b)).toEqual(
      pending.filter((p) => !cancelled.has(p.index)).map((p) => p.index),
    );
    for (const f of fired) expect(f.firedMs).toBeGreaterThanOrEqual(f.atMs - MAX_LEAD_MS);
    // In the order of the instants the wakes hold (on the helper's clock).
    const instants = fired.map((f) => f.wake.atMs);
    expect(instants).toEqual([...instants].sort((a, b) => a - b));
  });

  it(
    'wakeSoon with the thread: a caller that checks its clock is never early, and mostly on time',
    { retry: 1 },
    async () => {
      await helperReady();
      const lags: number[] = [];
      const start = performance.now() + 5;
      await new Promise<void>((done) => {
        let n = 0;
        const next = (): void => {
          const dueMs = start + n * 4;
          const check = (): void => {
            const nowMs = performance.now();
            if (nowMs < dueMs) return void wakeSoon(dueMs - nowMs, check);
            lags.push(nowMs - dueMs);
            if (++n < 100) next();
            else done();
          };
          check();
        };
        next();
      });
      expect(Math.min(...lags)).toBeGreaterThanOrEqual(0);
      // Wakes on time to a few microseconds: the lead covers how late the thread's messages come
      // (typically 0.05–0.2 ms here) and the caller turns the loop for the rest. Without the lead
      // hardly any would be (the messages' lateness is 0.04 ms at p10). A starved machine delays
      // some messages beyond the lead, hence a bar well below most.
      expect(lags.filter((lag) => lag < 0.02).length).toBeGreaterThanOrEqual(30);
    },
  );

  it('keeps a process whose only work is a pending wake alive until it fires, and lets it exit then', async () => {
    // The built module, in a process of its own: nothing else there holds the event loop open.
    const module = fileURLToPath(new URL('../../dist/util/wake-thread.js', import.meta.url));
    const script = `
      const { threadWake } = await import(${JSON.stringify(module)});
      for (let i = 0; i < 150; i++) threadWake(50, () => {});
      const start = performance.now();
      const tryWake = () => {
        const wake = threadWake(200, () => console.log('fired after ' + Math.round(performance.now() - start) + ' ms'));
        if (wake === null) setTimeout(tryWake, 5);
      };
      tryWake();`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.on('close', (c, s) => resolve([c, s])),
    );
    clearTimeout(killer);
    expect(signal).toBeNull();
    expect(code).toBe(0);
    expect(out).toMatch(/^fired after \d+ ms\n$/);
  });
});
