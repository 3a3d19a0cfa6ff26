/** Properties of the Retry-After parser: delay-seconds and HTTP-dates as RFC 9110 writes them, and garbage. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_S, parseRetryAfter, retryAfterSeconds } from '../../src/api/retry-after.ts';

const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);

describe('parseRetryAfter (property)', () => {
  it('reads delay-seconds exactly up to the longest wait taken at its word, and refuses longer ones as a finding', () => {
    fc.assert(
      fc.property(fc.oneof(fc.nat({ max: MAX_RETRY_AFTER_S }), fc.nat({ max: 2 ** 40 })), (seconds) => {
        const expected =
          seconds <= MAX_RETRY_AFTER_S
            ? { form: 'delta', seconds }
            : { form: 'invalid', raw: String(seconds), tooLong: true };
        expect(parseRetryAfter(String(seconds), NOW)).toEqual(expected);
        expect(parseRetryAfter(` ${seconds}\t`, NOW)).toEqual(expected);
      }),
    );
  });

  it('reads an IMF-fixdate as the whole seconds until it, never below 0', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: NOW - 86_400_000, max: NOW + 2 * 86_400_000 }),
          fc.integer({ min: Date.UTC(1970, 0, 2), max: Date.UTC(9999, 11, 31) }),
        ),
        (dateMs) => {
          const whole = Math.floor(dateMs / 1000) * 1000; // an HTTP-date has whole seconds
          const text = new Date(whole).toUTCString();
          const seconds = Math.max(0, Math.ceil((whole - NOW) / 1000));
          const expected =
            seconds <= MAX_RETRY_AFTER_S ? { form: 'date', seconds } : { form: 'invalid', raw: text, tooLong: true };
          expect(parseRetryAfter(text, NOW)).toEqual(expected);
        },
      ),
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
