/** The keep-alive rules every load connection applies (stale-connections.ts), as tables. */
import { describe, expect, it } from 'vitest';
import { idleLimitMs, isConnectionLoss, resendsOnFreshConnection } from '../../src/driver/stale-connections.ts';

describe('idleLimitMs', () => {
  it.each([
    // idle timeout, server's hint (ms), limit
    [4000, null, 4000], // no hint: http.idleTimeout
    [4000, 5000, 3000], // Node's `keep-alive: timeout=5`: 2 s under it
    [4000, 60_000, 4000], // a long hint never raises the limit
    [500, 5000, 500],
    [4000, 2000, 0], // too short to reuse the connection at all
    [4000, 1000, -1000],
  ])('idle timeout %i ms, hint %s → %i ms', (idleTimeoutMs, hintMs, limit) => {
    expect(idleLimitMs(idleTimeoutMs, hintMs)).toBe(limit);
  });
});

describe('resendsOnFreshConnection', () => {
  const resendable = (resends: number) => ({ resends, onResend: () => undefined });
  it.each([
    // request, connection carried one before, a response byte arrived, sent again
    [resendable(0), true, false, true], // the stale case
    [resendable(0), false, false, false], // a connection opened for it: the failure is the server's
    [resendable(0), true, true, false], // the server answered (in part): never again
    [resendable(1), true, false, false], // never twice
  ])('%o, reused %s, response started %s → %s', (request, reused, started, again) => {
    expect(resendsOnFreshConnection(request, reused, started)).toBe(again);
  });
});

describe('isConnectionLoss', () => {
  const withCode = (code: string): Error => Object.assign(new Error(code), { code });
  it.each([
    ['UND_ERR_SOCKET', true], // other side closed
    ['ECONNRESET', true],
    ['EPIPE', true],
    ['UND_ERR_HEADERS_TIMEOUT', false],
    ['UND_ERR_ABORTED', false],
    ['HPE_INVALID_CONSTANT', false],
  ])('%s → %s', (code, loss) => {
    expect(isConnectionLoss(withCode(code))).toBe(loss);
  });
});
