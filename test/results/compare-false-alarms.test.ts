// test-pass: quiet
/**
 * compare must not cry wolf: runs with identical settings, one after another on the same machine,
 * compared pairwise with the default rules, raise no regression. A release gate that fails on
 * noise gets switched off. Five short runs of the demo's mix, each its own rpcload process as in
 * CI, give ten pairs, judged both ways. They run one after another, as a release engineer's runs
 * do, in the quiet pass (nothing else on the machine; half a minute). Side by side, as this test
 * once ran them to save time, five processes on two cores disturb each other's sub-millisecond
 * figures in patterns that last a whole run and that no runs one after another have: CI read one
 * run's p50 at 1.3 ms against 2.6 ms for the others, and with their start phases spread apart
 * still 1.49 against 2.51 ms in one pair.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { compareRuns } from '../../src/results/compare/compare-runs.ts';
import { DEFAULT_FAIL_ON, parseFailOnRules } from '../../src/results/compare/fail-on.ts';
import { runRpcload } from '../support/cli.ts';
import { useTempDir } from '../support/temp-dir.ts';

const RUNS = 5;
const RATE_PER_S = 60;
const dir = useTempDir('rpcload-false-alarms-');

/**
 * The demo's clients, mix and embedded server, at its steady rate after a short warm-up, with one
 * pinned seed: identical settings draw the same scenario sequence (with random seeds the mix itself
 * differs — e.g. more pagination walks, more requests per second — which docs/compare-merge-report.md
 * tells users to pin). Its latency thresholds are left out: under a loaded CI machine they may
 * honestly flip, and they are not what the noise model decides.
 */
function demoProfile(): string {
  const demo = JSON.parse(readFileSync(new URL('../../profiles/demo.json', import.meta.url), 'utf8')) as Record<string, unknown>;
  const profile = {
    ...demo,
    $schema: undefined,
    thresholds: [],
    seed: 20261125,
    phases: [
      { name: 'warm-up', duration: '1s', rate: RATE_PER_S },
      { name: 'steady', duration: '4s', rate: RATE_PER_S },
    ],
  };
  const path = join(dir, 'demo-short.json');
  writeFileSync(path, JSON.stringify(profile));
  return path;
}

describe('compare on same-settings runs', () => {
  it('raises no regression over ten pairs, in either direction, with the default rules', { timeout: 120_000 }, async () => {
    const profile = demoProfile();
    const runs: RunResult[] = [];
    for (let n = 0; n < RUNS; n++) {
      const out = join(dir, `run-${n}.json`);
      const { code, stderr } = await runRpcload(['run', profile, '--ui', 'none', '--out', out]);
      expect(code, stderr).toBe(0);
      runs.push(JSON.parse(readFileSync(out, 'utf8')) as RunResult);
    }
    const rules = parseFailOnRules(DEFAULT_FAIL_ON);
    const alarms: string[] = [];
    let pairs = 0;
    for (let a = 0; a < RUNS; a++) {
      for (let b = a + 1; b < RUNS; b++) {
        pairs++;
        for (const [base, head] of [
          [a, b],
          [b, a],
        ] as const) {
          const comparison = compareRuns({ label: `run-${base}`, result: runs[base]! }, { label: `run-${head}`, result: runs[head]! }, { rules });
          for (const row of comparison.rows) {
            if (row.verdict !== 'regression') continue;
            alarms.push(`run-${base} → run-${head}: ${row.type === 'metric' ? `${row.method ?? 'overall'} ${row.metric} ${row.base} → ${row.head} (noise ±${row.noise})` : row.name}`);
          }
        }
      }
    }
    expect(pairs).toBe(10);
    expect(alarms).toEqual([]);
  });
});
