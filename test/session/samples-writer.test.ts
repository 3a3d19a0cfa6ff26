/** `run --out-samples`: one JSON line per second, written while the run goes, adding up to the result. */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/contract/result-schema.ts';
import type { SampleLine } from '../../src/session/samples-writer.ts';
import { runRpcload } from '../support/cli.ts';
import { useTempDir } from '../support/temp-dir.ts';

const dir = useTempDir('rpcload-samples-');

describe('rpcload run --out-samples', () => {
  it('writes a line per second during the run whose figures add up to the result file', async () => {
    const out = join(dir, 'result.json');
    const samples = join(dir, 'samples.jsonl');
    let sizeMidRun = 0;
    const probe = setInterval(() => {
      try {
        sizeMidRun = Math.max(sizeMidRun, statSync(samples).size);
      } catch {
        // not created yet
      }
    }, 100);
    const run = await runRpcload([
      'run',
      '--method',
      'ping',
      '--rate',
      '20',
      '--duration',
      '4s',
      '--ui',
      'none',
      '--out',
      out,
      '--out-samples',
      samples,
    ]);
    clearInterval(probe);
    expect(run.code).toBe(0);
    const result = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
    const lines = readFileSync(samples, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as SampleLine);
    expect(sizeMidRun).toBeGreaterThan(0); // tail -f sees seconds before the run ends
    expect(lines.map((l) => l.t)).toEqual(result.timeline.map((row) => row.t));
    expect(lines.reduce((sum, l) => sum + l.requests, 0)).toBe(result.summary.requests);
    const origin = Date.parse(result.run.startedAt);
    for (const line of lines) {
      expect(Object.keys(line)).toEqual([
        't',
        'time',
        'requests',
        'success',
        'rateLimited',
        'errors',
        'p50Ms',
        'p99Ms',
      ]);
      expect(Date.parse(line.time)).toBe(origin + line.t * 1000);
      expect(line.success + line.rateLimited + line.errors).toBe(line.requests);
    }
  });

  it('refuses an unwritable path in one line before any load', async () => {
    const run = await runRpcload([
      'run',
      '--method',
      'ping',
      '--duration',
      '1s',
      '--ui',
      'none',
      '--out',
      join(dir, 'x.json'),
      '--out-samples',
      join(dir, 'no-such-dir', 's.jsonl'),
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^rpcload: --out-samples: cannot write .*s\.jsonl \(ENOENT\)$/m);
  });
});
