/** Properties of envelope classification: any reply gets exactly one well-formed outcome key, and valid envelopes are read as written. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyResponse, normalizeErrorCode } from '../../src/api/envelope.ts';

const OUTCOME_KEY = /^(success|envelope_violation|http:\d{3}|error:[A-Za-z0-9_.:-]{1,64})$/;
const status = fc.integer({ min: 100, max: 599 });
const contentType = fc.oneof(fc.constant('application/json'), fc.constant(undefined), fc.string({ maxLength: 40 }));
const jsonObject = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });

describe('classifyResponse (property)', () => {
  it('gives any reply one outcome key of the vocabulary, without throwing', () => {
    const body = fc.oneof(
      fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
      fc.jsonValue({ maxDepth: 3 }).map((v) => Buffer.from(JSON.stringify(v) ?? '')),
      fc
        .record(
          {
            status: fc.oneof(fc.constantFrom('success', 'error'), fc.jsonValue()),
            data: fc.jsonValue(),
            error: fc.jsonValue(),
          },
          { requiredKeys: [] },
        )
        .map((v) => Buffer.from(JSON.stringify(v))),
      fc.constant(null),
    );
    fc.assert(
      fc.property(status, contentType, body, fc.boolean(), (code, type, bytes, truncated) => {
        const c = classifyResponse(code, type, bytes, truncated);
        expect(c.outcome).toMatch(OUTCOME_KEY);
        expect(c.kind === 'success').toBe(c.outcome === 'success');
        expect(c.kind === 'invalid').toBe(
          c.violations.length > 0 &&
            c.data === null &&
            c.errorCode === null &&
            !c.outcome.startsWith('error:') &&
            c.outcome !== 'success',
        );
      }),
    );
  });

  it('reads a success envelope with object data as success, with that data', () => {
    fc.assert(
      fc.property(jsonObject, fc.integer({ min: 200, max: 299 }), (data, code) => {
        const c = classifyResponse(
          code,
          'application/json',
          Buffer.from(JSON.stringify({ status: 'success', data })),
          false,
        );
        expect(c.outcome).toBe('success');
        expect(c.data).toEqual(JSON.parse(JSON.stringify(data))); // as JSON carries it (-0 becomes 0)
        expect(c.violations).toEqual([]);
      }),
    );
  });

  it('reads an error envelope as error:<code>, keeping safe codes as they are', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[A-Za-z0-9_.:-]{1,64}$/),
        fc.integer({ min: 400, max: 599 }),
        (code, httpStatus) => {
          const c = classifyResponse(
            httpStatus,
            'application/json',
            Buffer.from(JSON.stringify({ status: 'error', error: code })),
            false,
          );
          expect(c.outcome).toBe(`error:${code}`);
          expect(c.errorCode).toBe(code);
        },
      ),
    );
  });

  it('normalizes any error code into a bounded key without control characters', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300, unit: 'binary' }), (code) => {
        expect(normalizeErrorCode(code)).toMatch(/^[A-Za-z0-9_.:-]{1,64}$/);
      }),
    );
  });
});
