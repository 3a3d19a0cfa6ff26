import { describe, expect, it } from 'vitest';
import { renderVerifyTable, verifyJson } from '../../src/results/verify-table.ts';
import type { VerifyReport } from '../../src/verify/runner.ts';
import { resolveVerifyConfig } from '../../src/verify/config.ts';

const report: VerifyReport = {
  checks: [
    { id: 'envelope', verdict: 'pass', detail: '8 responses were valid', evidence: {} },
    { id: 'ratelimit.threshold', verdict: 'fail', detail: 'an idle client was refused after 9 requests\u001b[2J', evidence: {} },
    { id: 'tls', verdict: 'skip', detail: 'plain http target', evidence: {} },
  ],
  startedAt: new Date('2026-11-22T12:00:00Z'),
  endedAt: new Date('2026-11-22T12:00:21Z'),
  durationMs: 21_000,
  aborted: false,
};
const config = resolveVerifyConfig({ client: ['a:s'], method: ['ping'] }, null, 'http://api', null);

describe('verify output', () => {
  it('prints marks with plain words, one row per check, and the counts', () => {
    const table = renderVerifyTable(report, config, false);
    expect(table).toContain('rpcload verify  http://api  ·  100 requests per 10s per client  ·  1 client(s)  ·  21s');
    expect(table).toMatch(/^ {2}✓ PASS {2}envelope {24}8 responses were valid$/m);
    expect(table).toMatch(/^ {2}✗ FAIL {2}ratelimit\.threshold {13}an idle client was refused after 9 requests$/m);
    expect(table).toMatch(/^ {2}– SKIP {2}tls/m);
    expect(table).toContain('1 passed · 1 failed · 1 skipped');
    // server text never carries escape sequences to the terminal
    expect(table).not.toContain('\u001b');
  });

  it('colours only when asked', () => {
    expect(renderVerifyTable(report, config, true)).toContain('\u001b[31m✗ FAIL\u001b[0m');
  });

  it('gives machines the checks and the counts', () => {
    expect(verifyJson(report, config)).toMatchObject({ target: 'http://api', passed: 1, failed: 1, skipped: 1, durationMs: 21_000, checks: report.checks });
  });
});
