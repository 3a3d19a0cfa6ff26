/** Properties of the duration parser (profiles and flags): it reads what it writes, and never returns a non-number. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDurationMs, parseDurationMs } from '../../src/util/duration.ts';

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
const part = fc.tuple(
  fc.integer({ min: 0, max: 10_000 }),
  fc.constantFrom(...(Object.keys(UNIT_MS) as (keyof typeof UNIT_MS)[])),
);

describe('parseDurationMs (property)', () => {
  it('reads any sequence of <integer><unit> parts as their sum', () => {
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 4 }), (parts) => {
        const text = parts.map(([n, unit]) => `${n}${unit}`).join('');
        expect(parseDurationMs(text)).toBe(parts.reduce((sum, [n, unit]) => sum + n * UNIT_MS[unit], 0));
      }),
    );
  });

  it('returns a finite non-negative number or undefined for any text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.integer({ min: 300, max: 400 }).map((n) => `${'9'.repeat(n)}s`),
        ),
        (text) => {
          const ms = parseDurationMs(text);
          if (ms !== undefined) {
            expect(Number.isFinite(ms)).toBe(true);
            expect(ms).toBeGreaterThanOrEqual(0);
          }
        },
      ),
    );
  });

  it('reads back what formatDurationMs writes, to the precision it shows', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100 * 3_600_000 }), (ms) => {
        const back = parseDurationMs(formatDurationMs(ms));
        expect(back).toBeDefined();
        const precision = ms < 1000 ? 0.5 : ms < 60_000 ? 50 : ms < 3_600_000 ? 500 : 60_000;
        expect(Math.abs(back! - ms)).toBeLessThanOrEqual(precision);
      }),
    );
  });
});

describe('parseDurationMs (examples found by the properties)', () => {
  it('refuses a number too large to be finite instead of returning Infinity', () => {
    expect(parseDurationMs(`${'9'.repeat(400)}s`)).toBeUndefined();
    expect(parseDurationMs('9'.repeat(400))).toBeUndefined();
  });
});
