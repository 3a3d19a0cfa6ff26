import { describe, expect, it } from 'vitest';
import type { LedgerClientData, LedgerData } from '../../src/metrics/ledger-data.ts';
import { firstWindowCap, MAX_PERIODS_PER_CLIENT } from '../../src/metrics/ledger-data.ts';
import { mergeLedgerData } from '../../src/metrics/ledger-merge.ts';
import { RateLimitLedger } from '../../src/metrics/rate-limit-ledger.ts';
import { passiveRateLimitChecks } from '../../src/verify/passive/rate-limit-verdicts.ts';
import type { Sample } from '../../src/metrics/sample.ts';
import type { RateLimitContract } from '../../src/contract/rate-limit.ts';
import { sample } from '../support/recorder-fixtures.ts';

const LIMIT = 10;
const WINDOW_MS = 10_000;
const PLAN: RateLimitContract = { limit: LIMIT, windowMs: WINDOW_MS, policy: 'honour' };
const CLIENTS = ['a', 'b'];

/** A client's burst from idle: `admitted` requests pass, then `refused` get 429 (Retry-After 7), 10 ms apart. */
function burst(admitted: number, refused = 3, clientIndex = 0, startMs = 0): Sample[] {
  return Array.from({ length: admitted + refused }, (_, i) =>
    sample({
      clientIndex,
      sentAtMs: startMs + i * 10,
      doneAtMs: startMs + i * 10 + 5,
      status: i < admitted ? 200 : 429,
      outcome: i < admitted ? 'success' : 'error:rate_limit_exceeded',
      retryAfterS: i < admitted ? -1 : 7,
    }),
  );
}

function ledgerOf(samples: readonly Sample[], plan: RateLimitContract = PLAN): LedgerData {
  const ledger = new RateLimitLedger(CLIENTS, plan);
  for (const s of samples) ledger.record(s);
  return ledger.serialize()!;
}

const verdicts = (data: LedgerData) => Object.fromEntries(passiveRateLimitChecks(data, PLAN).map((c) => [c.id, c]));

describe('passive ratelimit.threshold', () => {
  it.each([
    ['exactly the limit admitted → pass', burst(LIMIT), 'pass', 'exact'],
    ['limit − 1 admitted: early refusal → fail', burst(LIMIT - 1), 'fail', 'early'],
    ['limit + 1: a clock-aligned window may have reset → skip (inconclusive)', burst(LIMIT + 1), 'skip', 'inconclusive'],
    ['2 × limit: still possible for a conformant limiter → skip (inconclusive)', burst(2 * LIMIT), 'skip', 'inconclusive'],
    ['2 × limit + 1: no conformant limiter admits that → fail', burst(2 * LIMIT + 1), 'fail', 'over'],
    ['far more than tracked (lower bound past 2 × limit) → fail', burst(5 * LIMIT), 'fail', 'over'],
    ['exact, completions recorded in reverse order → pass', burst(LIMIT).reverse(), 'pass', 'exact'],
    ['exact, refusals complete first → pass', [...burst(LIMIT).slice(LIMIT), ...burst(LIMIT).slice(0, LIMIT)], 'pass', 'exact'],
    [
      'exact, then an admission between later refusals, all recorded in reverse: the first refusal is the earliest sent → pass',
      burst(LIMIT)
        .map((s, i) => (i === LIMIT + 1 ? { ...s, status: 200, outcome: 'success', retryAfterS: -1 } : s))
        .reverse(),
      'pass',
      'exact',
    ],
    [
      'a transport failure before the refusal may have been counted → skip (inconclusive)',
      burst(LIMIT).map((s, i) => (i === 2 ? { ...s, status: 0, outcome: 'transport:UND_ERR_SOCKET' } : s)),
      'skip',
      'inconclusive',
    ],
    ['two clients, one exact and one early → fail', [...burst(LIMIT, 3, 0), ...burst(LIMIT - 2, 3, 1)], 'fail', 'early'],
    [
      'a 401 is not a quota hit (token expiry) → still exact',
      [sample({ sentAtMs: 0, status: 401, outcome: 'http:401' }), ...burst(LIMIT, 3, 0, 1)],
      'pass',
      'exact',
    ],
  ] as const)('%s', (_, samples, verdict, reading) => {
    const data = ledgerOf(samples);
    const check = verdicts(data)['ratelimit.threshold']!;
    expect(check.verdict).toBe(verdict);
    const evidence = check.evidence as { [k: string]: number };
    expect(evidence[reading]).toBeGreaterThan(0);
    expect(check.detail).not.toContain('\n');
  });

  it.each([
    ['no client was ever refused', burst(LIMIT, 0)],
    ['the first refusal came a window or more after the first request', [sample({ sentAtMs: 0 }), ...burst(LIMIT, 3, 0, WINDOW_MS)]],
  ])('skips with a reason when %s', (_, samples) => {
    const check = verdicts(ledgerOf(samples))['ratelimit.threshold']!;
    expect(check.verdict).toBe('skip');
    expect(check.detail).toMatch(/no client was refused within one window/);
  });

  it('counts admitted by send time, not completion time', () => {
    // Sent 0..9 admitted, 10 refused; but the refusal completes before half of the admitted ones.
    const samples = burst(LIMIT, 1).map((s, i) => ({ ...s, doneAtMs: i === LIMIT ? 50 : s.sentAtMs + 500 }));
    const data = ledgerOf([...samples].sort((x, y) => x.doneAtMs - y.doneAtMs));
    const evidence = verdicts(data)['ratelimit.threshold']!.evidence as {
      examples: { admittedBeforeRefusal: number; firstRefusalAtMs: number }[];
    };
    expect(evidence.examples[0]).toMatchObject({ admittedBeforeRefusal: LIMIT, firstRefusalAtMs: LIMIT * 10 });
  });

  it('keeps the first-window send times bounded', () => {
    const data = ledgerOf(burst(1000, 1));
    expect(data.clients.a!.firstWindowAdmittedSentAtMs).toHaveLength(firstWindowCap(LIMIT));
  });
});

describe('passive ratelimit.retry_after_honoured', () => {
  const refusal = sample({ sentAtMs: 1000, doneAtMs: 1010, status: 429, outcome: 'error:rate_limit_exceeded', retryAfterS: 2 });
  const retry = (waitedMs: number, status: number, retryAfterS = 2) =>
    sample({
      sentAtMs: 1010 + waitedMs,
      doneAtMs: 1020 + waitedMs,
      status,
      outcome: status === 200 ? 'success' : status === 429 ? 'error:rate_limit_exceeded' : 'transport:UND_ERR_SOCKET',
      backoffWaitedMs: waitedMs,
      backoffRetryAfterS: retryAfterS,
      retryAfterS: status === 429 ? 1 : -1,
    });

  it.each([
    ['every honoured retry admitted → pass', [retry(2000, 200), retry(2003, 200)], 'pass'],
    ['refused after waiting its full Retry-After → fail', [retry(2000, 200), retry(2001, 429)], 'fail'],
    ['refused after waiting less than the Retry-After is not evidence → skip', [retry(1500, 429)], 'skip'],
    ['a retry that failed in transit is not evidence → skip', [retry(2000, 0)], 'skip'],
    ['a retry after a 429 without Retry-After has nothing to honour → skip', [retry(2000, 200, -1)], 'skip'],
  ] as const)('%s', (_, retries, verdict) => {
    const check = verdicts(ledgerOf([refusal, ...retries]))['ratelimit.retry_after_honoured']!;
    expect(check.verdict).toBe(verdict);
    const evidence = check.evidence as { admitted: number; refused: number; refusals: { retryAfterS: number; waitedMs: number }[] };
    expect(evidence.admitted).toBe(retries.filter((r) => r.status === 200 && r.backoffRetryAfterS >= 0).length);
    if (verdict === 'fail') {
      const refused = retries.filter((r) => r.status === 429);
      expect(evidence.refused).toBe(refused.length);
      expect(evidence.refusals.map((r) => [r.retryAfterS, r.waitedMs])).toEqual(
        refused.map((r) => [r.backoffRetryAfterS, r.backoffWaitedMs]),
      );
      expect(check.detail).toContain(`Retry-After ${refused[0]!.backoffRetryAfterS} s`);
    }
  });

  it('says why when the policy is ignore', () => {
    const data = ledgerOf([refusal, sample({ sentAtMs: 1020 })], { ...PLAN, policy: 'ignore' });
    const check = passiveRateLimitChecks(data)[1]!;
    expect([check.verdict, check.detail]).toEqual(['skip', 'the run never waited out a Retry-After (429 policy: ignore)']);
  });

  it('records where in the window the honoured refusal had come', () => {
    const data = ledgerOf([refusal, retry(2000, 200)]);
    const observation = data.clients.a!.observations.find((o) => o.kind === 'honoured_retry')!;
    expect(observation.detail).toMatchObject({
      retryAfterS: 2,
      waitedMs: 2000,
      admitted: true,
      refusalAtMs: 1010,
      refusalPeriodOffsetMs: 1010 % WINDOW_MS,
    });
  });
});

describe('RateLimitLedger', () => {
  it.each([
    ['absent', -1],
    ['unparseable', -2],
  ] as const)('observes a 429 with an %s Retry-After', (key, retryAfterS) => {
    const data = ledgerOf([sample({ status: 429, outcome: 'http:429', retryAfterS, doneAtMs: 12 })]);
    const client = data.clients.a!;
    expect([client.retryAfterS, client.missingRetryAfter]).toEqual([{ [key]: 1 }, 1]);
    expect(client.observations).toEqual([
      { client: 'a', kind: 'missing_retry_after', atMs: 12, detail: { retryAfter: key, outcome: 'http:429' } },
    ]);
  });

  it('counts admitted and refused per window aligned to run start, only windows with traffic', () => {
    const sends = [100, 9_999, 10_000, 35_000, 35_001];
    const data = ledgerOf(
      sends.map((t, i) => sample({ sentAtMs: t, doneAtMs: t + 1, status: i % 2 ? 429 : 200, retryAfterS: i % 2 ? 1 : -1 })),
    );
    const expected = new Map<number, { admitted: number; refused: number }>();
    sends.forEach((t, i) => {
      const p = expected.get(Math.floor(t / WINDOW_MS)) ?? { admitted: 0, refused: 0 };
      expected.set(Math.floor(t / WINDOW_MS), i % 2 ? { ...p, refused: p.refused + 1 } : { ...p, admitted: p.admitted + 1 });
    });
    expect(data.clients.a!.periods).toEqual([...expected].map(([index, c]) => ({ index, ...c })));
  });

  it('caps periods per client and says so, while totals stay complete', () => {
    const windows = MAX_PERIODS_PER_CLIENT + 20;
    const data = ledgerOf(Array.from({ length: windows }, (_, i) => sample({ sentAtMs: i * WINDOW_MS })));
    const client = data.clients.a!;
    expect([client.periods.length, client.periodsTruncated, client.admitted]).toEqual([MAX_PERIODS_PER_CLIENT, true, windows]);
  });

  it('caps observations per client and kind', () => {
    const data = ledgerOf(Array.from({ length: 50 }, (_, i) => sample({ sentAtMs: i, status: 429, retryAfterS: -1 })));
    expect(data.clients.a!.observations.length).toBeLessThan(50);
    expect(data.clients.a!.missingRetryAfter).toBe(50);
  });

  it('merges per client exactly: ledgers of two halves equal the ledger of the whole', () => {
    const samples = [...burst(LIMIT + 1, 4, 0), ...burst(LIMIT, 2, 1, 50), sample({ sentAtMs: 25_000, doneAtMs: 25_001 })];
    const whole = ledgerOf(samples);
    const halves = [ledgerOf(samples.filter((_, i) => i % 2 === 0)), ledgerOf(samples.filter((_, i) => i % 2 === 1))];
    const merged = mergeLedgerData(halves)!;
    const comparable = (c: LedgerClientData) => ({ ...c, observations: c.observations.length });
    expect(Object.fromEntries(Object.entries(merged.clients).map(([id, c]) => [id, comparable(c)]))).toEqual(
      Object.fromEntries(Object.entries(whole.clients).map(([id, c]) => [id, comparable(c)])),
    );
    expect(passiveRateLimitChecks(merged)).toEqual(passiveRateLimitChecks(whole));
    expect(mergeLedgerData([null, null])).toBeNull();
  });

  it('without a contract keeps only the live counters and serializes to null', () => {
    const ledger = new RateLimitLedger(CLIENTS, null);
    ledger.record(sample({ status: 429, retryAfterS: 4, doneAtMs: 9 }));
    expect(ledger.serialize()).toBeNull();
    expect(ledger.client(0)).toMatchObject({ sent: 1, refused: 1, lastRetryAfterS: 4, lastRetryAfterAtMs: 9 });
    expect(ledger.admittedInWindow(0, 10)).toBe(0);
  });
});
