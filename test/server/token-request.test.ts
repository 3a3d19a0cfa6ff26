import { describe, expect, it } from 'vitest';
import { ClientRegistry } from '../../src/server/auth/clients.ts';
import { decideTokenRequest, parseBasicCredentials } from '../../src/server/auth/token-request.ts';

const clients = new ClientRegistry(
  [{ id: 'alice', secret: 's3cret:with colon' }],
  [{ prefix: 'client-', secret: 'demo-secret' }],
);
const basic = (id: string, secret: string): string =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

describe('decideTokenRequest', () => {
  it.each([
    // client_secret_post
    [
      'grant_type=client_credentials&client_id=alice&client_secret=s3cret%3Awith+colon',
      undefined,
      { ok: true, clientId: 'alice' },
    ],
    // client_secret_basic, with RFC 6749 §2.3.1 form-encoding inside the Basic credentials
    ['grant_type=client_credentials', basic('alice', 's3cret:with colon'), { ok: true, clientId: 'alice' }],
    // the demo pattern
    [
      'grant_type=client_credentials&client_id=client-7&client_secret=demo-secret',
      undefined,
      { ok: true, clientId: 'client-7' },
    ],
    // the pattern's prefix alone is not a client ID
    [
      'grant_type=client_credentials&client_id=client-&client_secret=demo-secret',
      undefined,
      { ok: false, error: 'invalid_client', basicUsed: false },
    ],
    // a registered client does not also accept the pattern's secret
    [
      'grant_type=client_credentials&client_id=alice&client_secret=demo-secret',
      undefined,
      { ok: false, error: 'invalid_client', basicUsed: false },
    ],
    [
      'grant_type=client_credentials&client_id=client-7&client_secret=wrong',
      undefined,
      { ok: false, error: 'invalid_client', basicUsed: false },
    ],
    [
      'grant_type=client_credentials',
      basic('client-7', 'wrong'),
      { ok: false, error: 'invalid_client', basicUsed: true },
    ],
    // no client authentication at all
    ['grant_type=client_credentials', undefined, { ok: false, error: 'invalid_client', basicUsed: false }],
    [
      'grant_type=client_credentials&client_id=client-7',
      undefined,
      { ok: false, error: 'invalid_client', basicUsed: false },
    ],
    // a scheme other than Basic is not a client authentication method we support
    ['grant_type=client_credentials', 'Bearer abc', { ok: false, error: 'invalid_client', basicUsed: true }],
    // both methods at once (RFC 6749 §2.3: MUST NOT use more than one)
    [
      'grant_type=client_credentials&client_id=client-7&client_secret=demo-secret',
      basic('client-7', 'demo-secret'),
      { ok: false, error: 'invalid_request', basicUsed: true },
    ],
    // missing or repeated grant_type
    [
      'client_id=client-7&client_secret=demo-secret',
      undefined,
      { ok: false, error: 'invalid_request', basicUsed: false },
    ],
    [
      'grant_type=client_credentials&grant_type=client_credentials&client_id=client-7&client_secret=demo-secret',
      undefined,
      { ok: false, error: 'invalid_request', basicUsed: false },
    ],
    // grants we do not support
    [
      'grant_type=password&client_id=client-7&client_secret=demo-secret',
      undefined,
      { ok: false, error: 'unsupported_grant_type', basicUsed: false },
    ],
    // refresh_token is known, but no refresh token is ever issued
    [
      'grant_type=refresh_token&refresh_token=abc&client_id=client-7&client_secret=demo-secret',
      undefined,
      { ok: false, error: 'invalid_grant', basicUsed: false },
    ],
    [
      'grant_type=refresh_token&client_id=client-7&client_secret=demo-secret',
      undefined,
      { ok: false, error: 'invalid_request', basicUsed: false },
    ],
    // the client is authenticated before the grant type is looked at (§5.2 order)
    [
      'grant_type=password&client_id=client-7&client_secret=wrong',
      undefined,
      { ok: false, error: 'invalid_client', basicUsed: false },
    ],
  ])('%s (Authorization %s) → %j', (form, authorization, expected) => {
    expect(decideTokenRequest(new URLSearchParams(form), authorization, clients)).toEqual(expected);
  });
});

describe('parseBasicCredentials', () => {
  it.each([
    [basic('a b', 'p:q'), { id: 'a b', secret: 'p:q' }], // form-decoded halves; the first colon splits
    [`basic ${Buffer.from('x:y').toString('base64')}`, { id: 'x', secret: 'y' }], // scheme is case-insensitive
    [`Basic ${Buffer.from('x+y:%41').toString('base64')}`, { id: 'x y', secret: 'A' }], // + is a space
    [`Basic ${Buffer.from('no-colon').toString('base64')}`, undefined],
    [`Basic ${Buffer.from('%E0%A4%A:x').toString('base64')}`, undefined], // broken percent-encoding
    ['Basic !!!', undefined], // not base64
    ['Basic', undefined],
    ['Bearer abc', undefined],
  ])('%j → %j', (header, expected) => expect(parseBasicCredentials(header)).toEqual(expected));
});
