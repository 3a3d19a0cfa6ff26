import { describe, expect, it } from 'vitest';
import type { CheckDefinition } from '../../src/verify/check.ts';
import type { CheckId } from '../../src/verify/check-ids.ts';
import { ClientPool } from '../../src/verify/client-pool.ts';
import { systemClock } from '../../src/verify/clock.ts';
import { runScheduled, type ScheduledCheck } from '../../src/verify/scheduler.ts';
import { pass } from '../../src/verify/verdict.ts';

describe('scheduler: checks that break the target', () => {
  it('run after every other check, one at a time, with nothing beside them', async () => {
    const events: string[] = [];
    const check = (id: CheckId, runsAlone: boolean, ms: number): ScheduledCheck => {
      const definition: CheckDefinition = {
        id,
        plan: () => ({ needs: [{ kind: 'spare', requests: 1 }], countsQuota: false, estimateMs: ms }),
        run: async () => {
          events.push(`start ${id}`);
          await new Promise((resolve) => setTimeout(resolve, ms));
          events.push(`end ${id}`);
          return pass('ok', {});
        },
      };
      return {
        definition,
        plan: { needs: [{ kind: 'spare', requests: 1 }], countsQuota: false, estimateMs: ms, runsAlone },
      };
    };
    const pool = new ClientPool(['a', 'b', 'c', 'd'], 100, 1000, systemClock);
    const outcomes = await runScheduled(
      // The breakers are the longest: without the rule they would start first.
      [
        check('ratelimit.store_outage', true, 60),
        check('envelope', false, 40),
        check('ratelimit.restart', true, 60),
        check('pagination', false, 20),
      ],
      {
        pool,
        clock: systemClock,
        signal: new AbortController().signal,
        execute: (scheduled, clientIds) => scheduled.definition.run(null as never, clientIds),
        onStart: () => undefined,
        onSettled: () => undefined,
      },
    );
    expect(outcomes.size).toBe(4);
    const at = (event: string): number => events.indexOf(event);
    for (const breaker of ['ratelimit.store_outage', 'ratelimit.restart'])
      expect(at(`start ${breaker}`)).toBeGreaterThan(Math.max(at('end envelope'), at('end pagination')));
    // One at a time: the second breaker starts after the first one ended.
    const [first, second] = events.filter((e) => e.startsWith('start ratelimit.'));
    expect(at(second!)).toBe(at(`end ${first!.slice('start '.length)}`) + 1);
  });
});
