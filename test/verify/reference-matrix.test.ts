import { describe, expect, it } from 'vitest';
import { FAULTS, type ServerOptions } from '../../src/server/options.ts';
import { CHECK_IDS } from '../../src/verify/check-ids.ts';
import { expectReasonedSkips, verdicts, verifyReference } from '../support/verify-reference.ts';

/**
 * Every limiter algorithm and every convention fault of the reference server, at 10 requests per
 * 2 s with 6 clients. Runs are independent servers and clients, so they run concurrently. The
 * servers run in this process: a worker thread per run cost more CPU than the verify runs' requests.
 */
const IN_PROCESS = { inProcess: true } as const;
// Runs wait for a slot (see support/verify-reference.ts): the time limit covers the wait.
describe.concurrent('verify against the reference server (10 per 2 s, 6 clients)', { timeout: 120_000 }, () => {
  it.each(['fixed', 'fixed-aligned', 'sliding'] as const)(
    '%s limiter: conformant, nothing fails',
    async (algorithm) => {
      const report = await verifyReference({ algorithm }, {}, IN_PROCESS);
      expect(report.checks.map((c) => c.id)).toEqual([...CHECK_IDS]);
      expect(
        report.checks
          .filter((c) => c.verdict === 'fail')
          .map((c) => `${c.id}: ${c.detail} ${JSON.stringify(c.evidence)}`),
      ).toEqual([]);
      expect(verdicts(report.checks), JSON.stringify(report.checks.filter((c) => c.verdict === 'skip'))).toMatchObject({
        tls: 'skip',
        'ratelimit.threshold': 'pass',
        'ratelimit.per_client': 'pass',
      });
      expect(expectReasonedSkips(report.checks)).toEqual([]);
    },
  );

  it('token-bucket limiter: ratelimit.threshold fails with the explanation, nothing else fails', async () => {
    const report = await verifyReference({ algorithm: 'token-bucket' }, {}, IN_PROCESS);
    const failed = report.checks.filter((c) => c.verdict === 'fail');
    expect(failed.map((c) => c.id)).toEqual(['ratelimit.threshold']);
    expect(failed[0]!.detail).toMatch(/refills gradually|comes back gradually/);
    expect(failed[0]!.detail).toMatch(/token-bucket-like/);
    // Judged with the refill allowance, never skipped for the refill.
    expect(verdicts(report.checks)).toMatchObject({
      'ratelimit.all_methods': 'pass',
      'ratelimit.concurrent_burst': 'pass',
    });
    expect(expectReasonedSkips(report.checks)).toEqual([]);
  });

  const conventionFaults = FAULTS.filter((f) => f.kind === 'convention');
  it.each(conventionFaults.map((f) => [f.name, f.breaks] as const))(
    'fault %s: exactly %j fail',
    async (name, breaks) => {
      const options: ServerOptions = { faults: [name], seed: 7 };
      // broken-envelope breaks 1 in 5 successes by default; the 10-request budget needs a surer rate.
      if (name === 'broken-envelope') options.brokenEnvelopeRate = 0.8;
      // tls-legacy only matters for an https target.
      if (name === 'tls-legacy') options.tls = true;
      const report = await verifyReference(options, {}, IN_PROCESS);
      const failed = report.checks.filter((c) => c.verdict === 'fail');
      expect(
        failed.map((c) => c.id).sort(),
        failed.map((c) => `${c.id}: ${c.detail} ${JSON.stringify(c.evidence)}`).join('\n'),
      ).toEqual([...breaks].sort());
      expect(expectReasonedSkips(report.checks)).toEqual([]);
      if (name === 'quota-global') {
        // One quota for all client IDs: the other rate-limit checks ran alone on an idle shared window, and were judged.
        const others = report.checks.filter(
          (c) => c.id.startsWith('ratelimit.') && c.id !== 'ratelimit.per_client' && c.skipClass !== 'not_applicable',
        );
        expect(
          others.map((c) => [c.id, c.verdict, c.notes?.some((n) => /alone on an idle shared window/.test(n))]),
        ).toEqual(others.map((c) => [c.id, 'pass', true]));
        const gate = report.checks.find((c) => c.id === 'ratelimit.per_client')!;
        expect(gate.notes?.join(' ')).toMatch(
          /then ran one after another, each alone on an idle shared window: \d+\.\d s after this check/,
        );
      }
    },
  );
});
