import { describe, expect, it } from 'vitest';
import { expectReasonedSkips, demoClients, verdicts, verifyReference } from '../support/verify-reference.ts';

/**
 * With fewer client IDs the suite runs sequentially where it must (one client: every quota check
 * after the other, each after a window of rest: about ten windows), and skips only what needs more.
 */
describe.concurrent('verify with fewer clients (10 per 2 s)', { timeout: 120_000 }, () => {
  it('1 client: only ratelimit.per_client (and tls on http, and the deployment checks without their flags) are skipped, with the reason', async () => {
    const report = await verifyReference({}, { client: demoClients(1) });
    const skipped = report.checks.filter((c) => c.verdict === 'skip');
    expect(skipped.map((c) => c.id)).toEqual([
      'ratelimit.per_client',
      'ratelimit.replicas',
      'ratelimit.store_outage',
      'ratelimit.restart',
      'tls',
    ]);
    expect(skipped[0]!.detail).toBe('needs 2 client IDs, 1 given (--client ID:SECRET, repeatable)');
    expect(report.checks.filter((c) => c.verdict === 'fail').map((c) => `${c.id}: ${c.detail}`)).toEqual([]);
  });

  it('2 clients: everything runs', async () => {
    const report = await verifyReference({}, { client: demoClients(2) });
    expect(verdicts(report.checks)).toMatchObject({
      'ratelimit.per_client': 'pass',
      'ratelimit.threshold': 'pass',
      'ratelimit.retry_after_honoured': 'pass',
      tls: 'skip',
    });
    expect(report.checks.filter((c) => c.verdict === 'fail').map((c) => `${c.id}: ${c.detail}`)).toEqual([]);
    expect(expectReasonedSkips(report.checks)).toEqual([]);
  });
});
