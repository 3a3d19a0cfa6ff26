import { describe, expect, it } from 'vitest';
import { judgeEnvelope, type EnvelopeSample } from '../../../src/verify/verdicts/envelope.ts';

const ok = (method: string, kind: 'success' | 'error' = 'success'): EnvelopeSample => ({
  method,
  unknownMethod: false,
  atMs: 1,
  status: kind === 'success' ? 200 : 400,
  kind,
  outcome: kind === 'success' ? 'success' : 'error:invalid_arguments',
  violations: [],
  bodyExcerpt: '{}',
});
const unknown: EnvelopeSample = {
  ...ok('nope', 'error'),
  unknownMethod: true,
  status: 404,
  outcome: 'error:not_found',
};

describe('judgeEnvelope', () => {
  it.each([
    // successes and error envelopes alike are fine; the unknown method got an error envelope
    [
      'conformant',
      [unknown, ok('ping'), ok('echo'), ok('items.list', 'error')],
      'pass',
      /4 responses from 3 method\(s\) were valid JSON envelopes; unknown method → error:not_found \(HTTP 404\)/,
    ],
    // one success body is not JSON
    [
      'broken success',
      [
        unknown,
        ok('ping'),
        {
          ...ok('ping'),
          kind: 'invalid' as const,
          outcome: 'envelope_violation',
          violations: ['body is not JSON'],
          bodyExcerpt: '<html>',
        },
      ],
      'fail',
      /1 of 3 responses broke the envelope; first: ping → HTTP 200: body is not JSON/,
    ],
    // a valid envelope with the wrong content-type
    [
      'wrong content-type',
      [unknown, { ...ok('ping'), violations: ['content-type is "text/plain", expected application/json'] }],
      'fail',
      /content-type is "text\/plain"/,
    ],
    // an unknown method "succeeding"
    [
      'unknown method succeeds',
      [{ ...unknown, kind: 'success' as const, status: 200, outcome: 'success' }],
      'fail',
      /unknown method got a success envelope, expected an error envelope/,
    ],
    // nothing answered
    [
      'no response',
      [{ ...ok('ping'), kind: null, status: 0, outcome: 'transport:ECONNREFUSED' }],
      'skip',
      /no request got a response/,
    ],
  ] as const)('%s', (_name, samples, verdict, detail) => {
    const result = judgeEnvelope({ samples, refusalsWaited: 0 });
    expect(result.verdict).toBe(verdict);
    expect(result.detail).toMatch(detail);
  });
});
