/**
 * `work` and `flaky`: methods that take time or fail now and then, so the reference server behaves
 * like a real service under load.
 */
import { INVALID_ARGUMENTS, successReply, UNEXPECTED_ERROR, type Reply } from '../reply.ts';
import type { Random } from '../random.ts';
import type { MethodHandler } from './method.ts';

/** Longest delay `work` will take, sampled or asked for (ms). */
export const MAX_WORK_DELAY_MS = 60_000;

/**
 * `work`: answers after a latency drawn from `sampleDelayMs` (a log-normal in the server), so
 * demos look like a real service. Arg `delayMs` (0–60,000) forces a fixed delay instead.
 * Data: `{"delayMs": <the delay applied>}`.
 */
export function createWork(sampleDelayMs: () => number): MethodHandler {
  return async (args, call): Promise<Reply> => {
    const { delayMs } = args;
    if (delayMs !== undefined && !(typeof delayMs === 'number' && delayMs >= 0 && delayMs <= MAX_WORK_DELAY_MS))
      return INVALID_ARGUMENTS;
    const appliedMs = delayMs ?? Math.min(MAX_WORK_DELAY_MS, Math.round(sampleDelayMs() * 1000) / 1000);
    await call.sleep(appliedMs);
    return successReply({ delayMs: appliedMs });
  };
}

/** `flaky`: 500 `unexpected_error` with probability `failureRate`, else `{"ok":true}`. */
export function createFlaky(random: Random, failureRate: number): MethodHandler {
  const ok = successReply({ ok: true });
  return () => (random() < failureRate ? UNEXPECTED_ERROR : ok);
}
