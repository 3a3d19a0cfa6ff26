/** Properties of the Retry-After parser: delay-seconds and HTTP-dates as RFC 9110 writes them, and garbage. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRetryAfter, retryAfterSeconds } from '../../src/api/retry-after.ts';

const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);

describe('parseRetryAfter (property)', () => {
  it('reads delay-seconds exactly', () => {
    fc.assert(
      fc.property(fc.nat({ max: 2 ** 31 }), (seconds) => {
        expect(parseRetryAfter(String(seconds), NOW)).toEqual({ form: 'delta', seconds });
        expect(parseRetryAfter(` ${seconds}\t`, NOW)).toEqual({ form: 'delta', seconds });
      }),
    );
  });

  it('reads an IMF-fixdate as the whole seconds until it, never below 0', () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1970, 0, 2), max: Date.UTC(9999, 11, 31) }), (dateMs) => {
        const whole = Math.floor(dateMs / 1000) * 1000; // an HTTP-date has whole seconds
        const parsed = parseRetryAfter(new Date(whole).toUTCString(), NOW);
        expect(parsed).toEqual({ form: 'date', seconds: Math.max(0, Math.ceil((whole - NOW) / 1000)) });
      }),
    );
  });

  it('never throws, and any value it gives is a finite number of seconds ≥ 0 (or -1 / -2 in the compact form)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.integer({ min: 1, max: 400 }).map((n) => '9'.repeat(n)),
          fc.array(fc.string(), { maxLength: 3 }),
        ),
        (value) => {
          const parsed = parseRetryAfter(value, NOW);
          if (parsed.form === 'delta' || parsed.form === 'date') {
            expect(Number.isFinite(parsed.seconds)).toBe(true);
            expect(parsed.seconds).toBeGreaterThanOrEqual(0);
          }
          if (parsed.form === 'invalid') expect(parsed.raw.length).toBeLessThanOrEqual(80);
          const compact = retryAfterSeconds(Array.isArray(value) ? value.join(',') : value, NOW);
          expect(Number.isFinite(compact) && compact >= -2).toBe(true);
        },
      ),
    );
  });
});

describe('parseRetryAfter (examples found by the properties)', () => {
  it('a run of digits too long to be a finite number is invalid, not Infinity seconds', () => {
    expect(parseRetryAfter('9'.repeat(400), NOW).form).toBe('invalid');
  });
});
