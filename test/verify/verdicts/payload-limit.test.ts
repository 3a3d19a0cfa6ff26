import { describe, expect, it } from 'vitest';
import { judgePayloadLimit, payloadResult, type PayloadProbe } from '../../../src/verify/verdicts/payload-limit.ts';

const probe = (
  bytes: number,
  status: number,
  outcome: string,
  contentType = 'application/json',
  body = '',
): PayloadProbe => ({
  bytes,
  atMs: 0,
  status,
  outcome,
  result: payloadResult(status, outcome),
  contentType,
  bodyExcerpt: body,
});
const accepted = (bytes: number) => probe(bytes, 200, 'success');
const refused = (bytes: number) => probe(bytes, 400, 'error:payload_limit_exceeded');
const EITHER = [100_000, 102_400];

describe('judgePayloadLimit', () => {
  it.each([
    // 100 KB read as 100,000
    [
      '100,000',
      EITHER,
      [accepted(2), accepted(100_000), refused(100_001)],
      'pass',
      /100,000 bytes accepted, 100,001 refused with HTTP 400 payload_limit_exceeded/,
    ],
    // 100 KB read as 102,400
    [
      '102,400',
      EITHER,
      [accepted(2), accepted(100_000), accepted(100_001), accepted(102_400), refused(102_401)],
      'pass',
      /102,400 bytes accepted/,
    ],
    // 64 KiB, found by bisection
    [
      '65,536',
      EITHER,
      [accepted(2), refused(100_000), accepted(65_536), refused(65_537)],
      'fail',
      /bodies up to 65,536 bytes are accepted, 65,537 refused; expected a limit of 100,000 or 102,400 bytes/,
    ],
    // a pinned limit that the server does not use
    [
      'pinned',
      [50_000],
      [accepted(2), refused(50_000)],
      'fail',
      /the limit lies between 2 and 50,000 bytes; expected 50,000/,
    ],
    // the right boundary, the wrong refusal
    [
      '413 text',
      EITHER,
      [accepted(2), accepted(100_000), probe(100_001, 413, 'http:413', 'text/plain', 'Payload Too Large')],
      'fail',
      /a 100001-byte body got HTTP 413 http:413 \(text\/plain: "Payload Too Large"\); expected HTTP 400/,
    ],
    // the connection dropped instead of a refusal
    [
      'reset',
      EITHER,
      [accepted(2), accepted(100_000), probe(100_001, 0, 'transport:ECONNRESET')],
      'fail',
      /got no response \(transport:ECONNRESET\)/,
    ],
    // no limit at all
    [
      'unlimited',
      EITHER,
      [accepted(2), accepted(100_000), accepted(100_001), accepted(102_400), accepted(102_401), accepted(1_048_576)],
      'fail',
      /a 1,048,576-byte body was accepted/,
    ],
    // even a tiny body refused: nothing to search
    [
      'tiny body refused',
      EITHER,
      [probe(2, 400, 'error:payload_limit_exceeded')],
      'skip',
      /even a small body was not accepted/,
    ],
  ] as const)('%s', (_name, expectedBytes, probes, verdict, detail) => {
    const result = judgePayloadLimit({ expectedBytes, probes });
    expect(result.verdict).toBe(verdict);
    expect(result.detail).toMatch(detail);
  });

  it.each([
    [400, 'error:payload_limit_exceeded', 'refused'],
    [413, 'http:413', 'refused'],
    // the method rejected the padding field: the body was taken
    [400, 'error:invalid_arguments', 'accepted'],
    [0, 'transport:EPIPE', 'failed'],
  ] as const)('payloadResult(%d, %s) = %s', (status, outcome, expected) => {
    expect(payloadResult(status, outcome)).toBe(expected);
  });
});
