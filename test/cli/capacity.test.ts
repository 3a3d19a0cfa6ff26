import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { validateRunResult } from '../../src/result-file/validate-result.ts';
import { runRpcload } from '../support/cli.ts';
import { testcases, xmlProblems } from '../support/xml.ts';
import { useTempDir } from '../support/temp-dir.ts';

const dir = useTempDir('rpcload-capacity-cli-');

/** Four clients of 10 requests/s each against a server that sustains 200/s: the quotas bind first. */
function quotaProfile(): string {
  const path = join(dir, 'quota.json');
  writeFileSync(
    path,
    JSON.stringify({
      name: 'quota',
      server: { capacity: { rate: 200 } },
      clients: { count: 4 },
      scenarios: [{ steps: [{ method: 'ping' }] }],
      phases: [{ duration: '1s', rate: 1 }],
      thresholds: ['p99 < 500ms'],
      capacity: { start: 10, warmUp: '0s', hold: '1s', confirm: '1s', maxLag: '1s' },
    }),
  );
  return path;
}

describe('rpcload capacity', () => {
  it('leads with the answer, stores the label and writes JUnit and a valid result file', async () => {
    const out = join(dir, 'quota-result.json');
    const junit = join(dir, 'quota.xml');
    const summary = join(dir, 'summary.md');
    const run = await runRpcload(
      ['capacity', quotaProfile(), '--out', out, '--label', 'v1.2.3', '--junit', junit, '--ui', 'none'],
      {
        env: { GITHUB_STEP_SUMMARY: summary },
      },
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')[0]).toMatch(
      /^capacity at least 36\/s \(capacity bound by client quotas: 4 clients × 10\/s = 40\/s/,
    );
    const result = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
    expect(validateRunResult(result)).toEqual([]);
    expect(result.run).toMatchObject({ kind: 'capacity', label: 'v1.2.3', status: 'completed' });
    expect(result.capacity).toMatchObject({ ratePerS: 36, limitedBy: 'client quota', atLeast: true });
    expect(readFileSync(summary, 'utf8')).toMatch(/^### rpcload capacity \(v1\.2\.3\): 🟡 capacity at least 36\/s/);
    const xml = readFileSync(junit, 'utf8');
    expect(xmlProblems(xml)).toEqual([]);
    expect([...testcases(xml).keys()]).toEqual([
      'capacity',
      'threshold: p99 &lt; 500ms',
      'threshold: achieved &gt;= 99% of offered',
      'threshold: rate_limited &lt; 1%',
      // The steps' passive checks, combined: a limiter that over-admits fails the capacity run too.
      'ratelimit.threshold',
      'ratelimit.retry_after_honoured',
    ]);
  }, 60_000);

  it('refuses a hold that is not whole seconds in one line (exit 2)', async () => {
    const run = await runRpcload(['capacity', quotaProfile(), '--hold', '1500ms']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('--hold: expected whole seconds');
  });

  it('stops on Ctrl-C and still writes the steps so far (exit 130, status aborted)', async () => {
    const out = join(dir, 'interrupted.json');
    let sent = false;
    const run = await runRpcload(['capacity', quotaProfile(), '--out', out, '--hold', '3s', '--ui', 'plain'], {
      onSpawn: (child) => {
        child.stderr?.on('data', (chunk: Buffer) => {
          // Interrupt once the second step is under way.
          if (!sent && chunk.toString().includes('step 2:')) {
            sent = true;
            child.kill('SIGINT');
          }
        });
      },
    });
    expect(sent).toBe(true);
    expect(run.code).toBe(130);
    const result = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
    expect(validateRunResult(result)).toEqual([]);
    expect(result.run.status).toBe('aborted');
    expect(result.capacity!.steps.length).toBeGreaterThanOrEqual(1);
    expect(result.capacity!.steps[0]!.verdict).toBe('pass');
  }, 60_000);
});
