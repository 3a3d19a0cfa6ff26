/**
 * `rpcload capacity --replay`: the search steps the speed of a recording, every step replaying the
 * same window (looping it), against the embedded reference server with a known service capacity;
 * the found speed's calls per second land within 10 % of it, and the record says both.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildPlan } from '../../src/profile/build-plan.ts';
import { prepareReplay } from '../../src/profile/replay-plan.ts';
import { validateRunResult } from '../../src/result-file/validate-result.ts';
import { capacitySession } from '../../src/session/capacity/capacity-session.ts';
import { useTempDir } from '../support/temp-dir.ts';

/** The embedded reference server sustains exactly this many calls per second. */
const TRUE_CAPACITY = 200;
/** The recording: 50 calls per second for 4 s, 40 callers in turn (each well inside its quota up to 8×). */
const RECORDED_PER_S = 50;
const dir = useTempDir('rpcload-capacity-replay-');

describe('rpcload capacity --replay against a server with a known capacity', () => {
  it(
    'finds the speed whose calls per second are the server’s capacity (within 10 %)',
    { retry: 1, timeout: 180_000 },
    async () => {
      const file = join(dir, 'mix.jsonl');
      const calls = Array.from({ length: RECORDED_PER_S * 4 }, (_, i) =>
        JSON.stringify({
          t: (i * 1000) / RECORDED_PER_S,
          client: `client-${(i % 40) + 1}`,
          method: i % 4 === 0 ? 'echo' : 'ping',
          args: { i },
        }),
      );
      writeFileSync(file, `${calls.join('\n')}\n`);
      const profile = buildPlan(
        {
          name: 'capacity-replay',
          server: { capacity: { rate: TRUE_CAPACITY, workers: 4 } },
          clients: { pattern: 'client-{n}', count: 40 },
          replay: { file },
          http: { connections: 32, maxInFlight: 5000 },
          // Speeds 3×, 4.5× (fails), 3.8×, 4.2× (fails), 4×, 4.1×: the capacity bracketed within 5 % from
          // near it (growing by 1.5), without the steps far past it that doubling from 1× plays.
          capacity: {
            warmUp: '1s',
            hold: '2s',
            confirm: '0s',
            maxLag: '1s',
            start: 3,
            factor: 1.5,
            slo: ['p99 < 400ms'],
          },
        },
        { source: '' },
      );
      const plan = await prepareReplay(profile, 0, { ...profile.workloads[0]!.replaySettings!, loop: false });
      const out = await capacitySession({
        plan,
        outPath: join(dir, 'capacity.json'),
        signal: new AbortController().signal,
      });
      const { record, result } = out;
      process.stdout.write(`[capacity --replay] ${record.finding}\n`);
      expect(validateRunResult(result)).toEqual([]);
      expect(record.speed).not.toBeNull();
      // calls/s at the found speed: the recording's rate × the speed.
      expect(record.ratePerS).toBeCloseTo(record.speed! * RECORDED_PER_S, 0);
      expect(Math.abs(record.ratePerS! - TRUE_CAPACITY) / TRUE_CAPACITY).toBeLessThanOrEqual(0.1);
      expect(record.finding).toMatch(
        /^capacity [\d.]+× the recording \([\d,.]+ calls\/s; bracket [\d.]+×–[\d.]+×\); limited by \w+/,
      );
      // Every step played the recording's methods, at its speed's rate.
      for (const step of record.steps.filter((s) => s.verdict === 'pass'))
        expect(Math.abs(step.offeredPerS - step.load * RECORDED_PER_S) / (step.load * RECORDED_PER_S)).toBeLessThan(
          0.1,
        );
      expect(Object.keys(result.byMethod).sort()).toEqual(['echo', 'ping']);
      expect(result.replay).toMatchObject({ file: 'mix.jsonl', calls: 200, speed: record.speed });
    },
  );
});
