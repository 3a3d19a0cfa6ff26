import { describe, expect, it } from 'vitest';
import { classifyResponse, isJsonContentType, normalizeErrorCode, ResponseClassifier } from '../../src/api/envelope.ts';
import { registerSecret } from '../../src/util/redact.ts';

const JSON_CT = 'application/json';
const body = (text: string): Buffer => Buffer.from(text);

describe('classifyResponse', () => {
  it.each([
    // the two valid shapes
    [200, JSON_CT, '{"status":"success","data":{"a":1}}', 'success', 'success', []],
    [429, JSON_CT, '{"status":"error","error":"rate_limit_exceeded"}', 'error:rate_limit_exceeded', 'error', []],
    [
      400,
      'application/json; charset=utf-8',
      '{"status":"error","error":"payload_limit_exceeded"}',
      'error:payload_limit_exceeded',
      'error',
      [],
    ],
    // a valid envelope keeps its outcome when only the content-type is wrong
    [
      200,
      'text/plain',
      '{"status":"success","data":{}}',
      'success',
      'success',
      ['content-type is "text/plain", expected application/json'],
    ],
    // structurally broken 2xx bodies are envelope violations
    [200, JSON_CT, 'garbage', 'envelope_violation', 'invalid', ['body is not JSON']],
    [200, JSON_CT, '[1,2]', 'envelope_violation', 'invalid', ['body is not a JSON object']],
    [
      200,
      JSON_CT,
      '{"status":"success"}',
      'envelope_violation',
      'invalid',
      ['success envelope without an object "data"'],
    ],
    [
      200,
      JSON_CT,
      '{"status":"success","data":[1]}',
      'envelope_violation',
      'invalid',
      ['success envelope without an object "data"'],
    ],
    [
      200,
      JSON_CT,
      '{"status":"ok","data":{}}',
      'envelope_violation',
      'invalid',
      ['"status" is "ok", expected "success" or "error"'],
    ],
    [
      200,
      JSON_CT,
      '{"data":{}}',
      'envelope_violation',
      'invalid',
      ['"status" is missing, expected "success" or "error"'],
    ],
    [500, JSON_CT, '{"status":"error","error":5}', 'http:500', 'invalid', ['error envelope without a string "error"']],
    // non-2xx without an envelope keep their status: a proxy's page
    [
      502,
      'text/html',
      '<html>bad gateway</html>',
      'http:502',
      'invalid',
      ['content-type is "text/html", expected application/json', 'body is not JSON'],
    ],
    [
      204,
      undefined,
      '',
      'envelope_violation',
      'invalid',
      ['content-type is missing, expected application/json', 'body is empty'],
    ],
    // the status code disagreeing with the envelope is a violation but keeps the outcome
    [500, JSON_CT, '{"status":"success","data":{}}', 'success', 'success', ['success envelope with HTTP 500']],
    [
      200,
      JSON_CT,
      '{"status":"error","error":"not_found"}',
      'error:not_found',
      'error',
      ['error envelope with HTTP 200'],
    ],
  ] as const)('%i %s %s → %s', (status, contentType, text, outcome, kind, violations) => {
    const result = classifyResponse(status, contentType, body(text), false);
    expect(result.outcome).toBe(outcome);
    expect(result.kind).toBe(kind);
    expect(result.violations).toEqual(violations);
  });

  it('exposes data of a success and the code of an error', () => {
    expect(
      classifyResponse(200, JSON_CT, body('{"status":"success","data":{"next":null,"items":[]}}'), false).data,
    ).toEqual({
      next: null,
      items: [],
    });
    expect(classifyResponse(404, JSON_CT, body('{"status":"error","error":"not_found"}'), false).errorCode).toBe(
      'not_found',
    );
  });

  it('treats a body cut at the read cap as unparseable', () => {
    const result = classifyResponse(200, JSON_CT, body('{"status":"success","data":{"x":"'), true);
    expect(result.outcome).toBe('envelope_violation');
    expect(result.violations).toContain('body exceeds the read cap');
  });

  it('scrubs hostile error codes before they become outcome keys', () => {
    const result = classifyResponse(
      400,
      JSON_CT,
      body(JSON.stringify({ status: 'error', error: '\u001b[31mred\u001b]0;title\u0007 code' })),
      false,
    );
    expect(result.outcome).toBe('error:red_code');
  });
});

describe('isJsonContentType', () => {
  it.each([
    ['application/json', true],
    ['Application/JSON; charset=UTF-8', true],
    ['application/problem+json', true],
    ['text/json', false],
    ['text/plain', false],
    [undefined, false],
  ])('%s → %s', (ct, expected) => expect(isJsonContentType(ct)).toBe(expected));
});

describe('normalizeErrorCode', () => {
  it.each([
    ['rate_limit_exceeded', 'rate_limit_exceeded'],
    ['a b/c', 'a_b_c'], // disallowed characters become underscores
    ['x'.repeat(100), `${'x'.repeat(63)}_`], // capped (the ellipsis is scrubbed too)
    ['\u0007', '_'], // a lone control character still yields a key
  ])('%j → %j', (code, expected) => expect(normalizeErrorCode(code)).toBe(expected));
});

describe('ResponseClassifier', () => {
  const json = 'application/json';
  const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');
  const replies: [number, string | undefined, string][] = [
    [200, json, '{"status":"success","data":{"pong":true}}'],
    [200, json, '{"status":"success","data":{"pong":false}}'],
    [429, json, '{"status":"error","error":"rate_limit_exceeded"}'],
    [500, json, '{"status":"error","error":"rate_limit_exceeded"}'],
    [200, 'text/plain', '{"status":"success","data":{"pong":true}}'],
    [200, json, 'not json'],
    [200, json, '{"status":"success","data":{"next":"c2"}}'],
  ];

  it('classifies every reply exactly as classifyResponse does, repeated or not', () => {
    const classifier = new ResponseClassifier();
    for (const [status, type, body] of [...replies, ...replies.slice().reverse(), ...replies, ...replies]) {
      expect(classifier.classify(status, type, bytes(body), false)).toEqual(
        classifyResponse(status, type, bytes(body), false),
      );
    }
  });

  it('answers a repeated reply from memory (the same classification object), a different one afresh', () => {
    const classifier = new ResponseClassifier();
    const first = classifier.classify(200, json, bytes(replies[0]![2]), false);
    expect(classifier.classify(200, json, bytes(replies[0]![2]), false)).toBe(first);
    expect(classifier.classify(201, json, bytes(replies[0]![2]), false)).not.toBe(first);
    // A reply cut at the read cap is never answered from memory, even with the same kept bytes.
    const truncated = classifier.classify(200, json, bytes(replies[0]![2]), true);
    expect(truncated.kind).toBe('invalid');
    expect(classifier.classify(200, json, bytes(replies[0]![2]), true)).toEqual(truncated);
  });

  it('re-classifies once a new secret is registered: an echoed secret in an error code is redacted', () => {
    const classifier = new ResponseClassifier();
    const secret = `memo-secret-${Date.now()}`;
    const reply = bytes(`{"status":"error","error":"${secret}"}`);
    expect(classifier.classify(400, json, reply, false).outcome).toBe(`error:${secret}`);
    registerSecret(secret);
    expect(classifier.classify(400, json, reply, false).outcome).not.toContain(secret);
  });
});
