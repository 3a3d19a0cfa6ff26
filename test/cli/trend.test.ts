import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRpcload } from '../support/cli.ts';
import { capacityResult } from '../support/capacity-fixtures.ts';
import { useTempDir } from '../support/temp-dir.ts';

describe('rpcload trend', () => {
  it('reads a directory, flags the latest run, writes markdown to the job summary and an HTML page, exits 1', async () => {
    const dir = useTempDir('rpcload-trend-');
    const rates = [300, 306, 294, 303, 297, 250];
    rates.forEach((ratePerS, i) => {
      const result = capacityResult({
        seed: i + 1,
        ratePerS,
        label: `v1.${i}`,
        startedAt: new Date(Date.UTC(2026, 10, 1 + i)).toISOString(),
      });
      writeFileSync(join(dir, `night-${i}.json`), JSON.stringify(result));
    });
    writeFileSync(join(dir, 'notes.json'), '{"not":"a result"}');
    const summary = join(tmpdir(), `trend-summary-${process.pid}.md`);
    const html = join(dir, 'trend.html');
    const run = await runRpcload(['trend', dir, '--html', html], { env: { GITHUB_STEP_SUMMARY: summary } });
    expect(run.code).toBe(1);
    expect(run.stdout.split('\n')[0]).toContain(
      'the latest run (v1.5) is worse than the median of the 5 before it: capacity',
    );
    expect(run.stdout.split('\n').filter((line) => line.includes('WORSE'))).toHaveLength(1);
    expect(run.stderr).toContain('skipped 1 file');
    expect(readFileSync(summary, 'utf8')).toContain('### rpcload trend: 🔴');
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('<svg');
    expect(page).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/);
  });
});
