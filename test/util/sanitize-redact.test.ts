import { describe, expect, it } from 'vitest';
import { REDACTED, redactSecrets, redactText, registerSecret } from '../../src/util/redact.ts';
import { normalizeErrorCode } from '../../src/api/envelope.ts';
import { sanitizeText } from '../../src/util/sanitize.ts';

describe('sanitizeText', () => {
  it.each([
    ['plain text', 'plain text'],
    ['\u001b[2J\u001b[Hcleared', 'cleared'], // CSI: clear screen, cursor home
    ['\u001b]0;pwned\u0007title', 'title'], // OSC: set window title
    ['\u001b]8;;http://x\u001b\\link', 'link'], // OSC 8 hyperlink with ST terminator
    ['bell\u0007 and nul\u0000', 'bell  and nul '], // bare control characters become spaces
    ['\u009b31mred', 'red'], // 8-bit CSI
    ['rtl\u202eevil', 'rtl evil'], // bidi override
  ])('%j → %j', (input, expected) => expect(sanitizeText(input)).toBe(expected));

  it('caps the length with an ellipsis', () => {
    expect(sanitizeText('x'.repeat(50), 10)).toBe(`${'x'.repeat(9)}…`);
  });
});

describe('redactSecrets', () => {
  it('redacts secret-ish keys, bearer values and known secrets, keeping the rest', () => {
    const input = {
      auth: { tokenMethod: 'auth.token', clientAuth: 'post' },
      embeddedServer: { tokenResponse: 'bare', tokenTtlS: 60, secretsFile: 'secrets.json' },
      headers: { Authorization: 'Basic abc' },
      clients: [{ id: 'a', secret: 's3cr3t-value' }],
      note: 'header was Bearer abc.def-123 and s3cr3t-value leaked',
      accessToken: 'tok',
      tokens: 12,
    };
    const out = redactSecrets(input, ['s3cr3t-value']);
    expect(out.auth.tokenMethod).toBe('auth.token');
    expect(out.embeddedServer).toEqual({ tokenResponse: 'bare', tokenTtlS: 60, secretsFile: 'secrets.json' });
    expect(out.headers.Authorization).toBe(REDACTED);
    expect(out.clients[0]!.secret).toBe(REDACTED);
    expect(out.note).toBe(`header was Bearer ${REDACTED} and ${REDACTED} leaked`);
    expect(out.accessToken).toBe(REDACTED);
    expect(out.tokens).toBe(12);
    expect(input.clients[0]!.secret).toBe('s3cr3t-value'); // the input is not modified
  });

  it('redacts the new credentials by key — private keys, passphrases, assertions, signing secrets — and keeps their settings', () => {
    const out = redactSecrets({
      clients: [
        {
          id: 'a',
          privateKey: '-----BEGIN PRIVATE KEY-----x',
          signingSecret: 'sig',
          privateKeyPattern: 'keys/{id}.pem',
        },
      ],
      http: { keyPassphrase: 'pass', cert: 'client.pem', keyPattern: 'certs/{id}.key' },
      form: {
        client_assertion: 'eyJ.x.y',
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      },
    });
    expect(out).toEqual({
      clients: [{ id: 'a', privateKey: REDACTED, signingSecret: REDACTED, privateKeyPattern: 'keys/{id}.pem' }],
      http: { keyPassphrase: REDACTED, cert: 'client.pem', keyPattern: 'certs/{id}.key' },
      form: {
        client_assertion: REDACTED,
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      },
    });
  });

  it.each([
    // credentials go …
    ['Authorization: Bearer abc.def-123 sent', `Authorization: Bearer ${REDACTED} sent`],
    ['Basic dXNlcjpwYXNz== then', `Basic ${REDACTED} then`],
    ['Bearer tok', `Bearer ${REDACTED}`],
    // … challenges (evidence) stay
    [
      'WWW-Authenticate: Bearer realm="rpcload", error="invalid_token"',
      'WWW-Authenticate: Bearer realm="rpcload", error="invalid_token"',
    ],
    ['Bearer error=invalid_token', 'Bearer error=invalid_token'],
    ['Basic realm="x"', 'Basic realm="x"'],
  ])('scrubs %j → %j', (text, expected) => expect(redactSecrets(text)).toBe(expected));
});

describe('the registered secrets', () => {
  registerSecret('reg+Secret/77=');
  registerSecret('tok.issued-99');

  it('are scrubbed from text in their raw and URL-encoded spellings, and from sanitized text', () => {
    expect(redactText('a reg+Secret/77= b')).toBe(`a ${REDACTED} b`);
    expect(redactText('client_secret=reg%2BSecret%2F77%3D&x')).toBe(`client_secret=${REDACTED}&x`);
    expect(sanitizeText(`echo tok.issued-99 ${'x'.repeat(300)}`, 20)).toBe(`echo ${REDACTED} xxx…`);
  });

  it('are scrubbed from object keys as well as values', () => {
    expect(redactSecrets({ 'error:tok.issued-99': 3, list: ['tok.issued-99'] })).toEqual({
      [`error:${REDACTED}`]: 3,
      list: [REDACTED],
    });
  });

  it('never become outcome keys: an error code echoing a token is redacted before it is normalized', () => {
    expect(normalizeErrorCode('tok.issued-99')).toBe('_redacted_');
    expect(normalizeErrorCode('bad token reg+Secret/77=!')).toBe('bad_token__redacted__');
    expect(normalizeErrorCode('rate_limit_exceeded')).toBe('rate_limit_exceeded');
  });

  it('ignore strings too short to be told from ordinary words', () => {
    registerSecret('abc');
    expect(redactText('abcdef')).toBe('abcdef');
  });
});
