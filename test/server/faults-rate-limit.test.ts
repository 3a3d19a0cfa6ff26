import { describe, expect, it } from 'vitest';
import type { FaultName } from '../../src/server/options.ts';
import { burst, call, sleep, startTestServer, tally, tokenFor } from '../support/server-helpers.ts';

/** limit 10 per window (long unless a reset matters), fixed windows, one fault. */
const withFault = (fault: FaultName, windowMs = 60_000) => startTestServer({ limit: 10, windowMs, faults: [fault] });

describe('rate-limit faults: each breaks its rule, the rest still works', () => {
  it('limit-plus-one admits 11, then refuses properly', async () => {
    const server = await withFault('limit-plus-one');
    const token = await tokenFor(server.url, 'client-a');
    expect(tally(await burst(server.url, 'ping', token, 12))).toEqual({ 200: 11, 429: 1 });
    const control = await call(server.url, 'ping', token);
    expect([control.status, control.headers['retry-after'], control.json]).toEqual([
      429,
      expect.stringMatching(/^[1-9]\d*$/),
      { status: 'error', error: 'rate_limit_exceeded' },
    ]);
  });

  it('limit-minus-one admits 9', async () => {
    const server = await withFault('limit-minus-one');
    const token = await tokenFor(server.url, 'client-a');
    expect(tally(await burst(server.url, 'ping', token, 10))).toEqual({ 200: 9, 429: 1 });
  });

  it('retry-after-floor: a client waiting exactly Retry-After comes back before the reset', async () => {
    const server = await withFault('retry-after-floor', 2500);
    const token = await tokenFor(server.url, 'client-a');
    await burst(server.url, 'ping', token, 10);
    const refused = await call(server.url, 'ping', token);
    expect(refused.headers['retry-after']).toBe('2'); // ~2.45 s rounded down
    await sleep(2000);
    expect((await call(server.url, 'ping', token)).status).toBe(429); // too early
    await sleep(1000);
    expect((await call(server.url, 'ping', token)).status).toBe(200); // the window itself is right
  });

  it('retry-after-missing: 429 without Retry-After, the envelope intact', async () => {
    const server = await withFault('retry-after-missing');
    const token = await tokenFor(server.url, 'client-a');
    await burst(server.url, 'ping', token, 10);
    const refused = await call(server.url, 'ping', token);
    expect([refused.status, refused.headers['retry-after'], refused.json]).toEqual([
      429,
      undefined,
      { status: 'error', error: 'rate_limit_exceeded' },
    ]);
  });

  it('429-no-envelope: a text/plain 429, Retry-After intact', async () => {
    const server = await withFault('429-no-envelope');
    const token = await tokenFor(server.url, 'client-a');
    await burst(server.url, 'ping', token, 10);
    const refused = await call(server.url, 'ping', token);
    expect([refused.status, refused.headers['content-type'], refused.text, refused.headers['retry-after']]).toEqual([
      429,
      'text/plain; charset=utf-8',
      'Too Many Requests',
      expect.stringMatching(/^[1-9]\d*$/),
    ]);
  });

  it('quota-per-token: two tokens of one client get a quota each', async () => {
    const server = await withFault('quota-per-token');
    const [t1, t2] = await Promise.all([tokenFor(server.url, 'client-a'), tokenFor(server.url, 'client-a')]);
    expect(tally([...(await burst(server.url, 'ping', t1, 11)), ...(await burst(server.url, 'ping', t2, 11))])).toEqual(
      {
        200: 20,
        429: 2,
      },
    );
  });

  it('quota-global: one client exhausts everyone', async () => {
    const server = await withFault('quota-global');
    const [a, b] = await Promise.all([tokenFor(server.url, 'client-a'), tokenFor(server.url, 'client-b')]);
    expect(tally(await burst(server.url, 'ping', a, 10))).toEqual({ 200: 10 });
    expect((await call(server.url, 'ping', b)).status).toBe(429);
    expect(server.stats().byClient['client-b']).toEqual({ admitted: 0, refused: 1 }); // still counted per client
  });

  it('quota-per-method: each method has its own quota', async () => {
    const server = await withFault('quota-per-method');
    const token = await tokenFor(server.url, 'client-a');
    expect(tally(await burst(server.url, 'ping', token, 10))).toEqual({ 200: 10 });
    expect(tally(await burst(server.url, 'echo', token, 11))).toEqual({ 200: 10, 429: 1 });
  });

  it('racy-counter: a concurrent burst over-admits; one request at a time is still limited', async () => {
    const server = await withFault('racy-counter');
    const [a, b] = await Promise.all([tokenFor(server.url, 'client-a'), tokenFor(server.url, 'client-b')]);
    expect(tally(await burst(server.url, 'ping', a, 15))['200']).toBeGreaterThan(10);
    const sequential: number[] = [];
    for (let i = 0; i < 11; i++) sequential.push((await call(server.url, 'ping', b)).status);
    expect(tally(sequential)).toEqual({ 200: 10, 429: 1 });
  });

  it.each([
    // with the fault, a client retrying every 300 ms never gets back in, even past its reset
    ['count-refused', ['count-refused'] as const],
    // control: the same retries without the fault are admitted once the window ends
    ['no fault', [] as const],
  ])('%s: retrying every 300 ms for 2.4 s after exhausting a 2 s window', async (name, faults) => {
    const server = await startTestServer({ limit: 10, windowMs: 2000, faults });
    const token = await tokenFor(server.url, 'client-a');
    await burst(server.url, 'ping', token, 10);
    const statuses: number[] = [];
    let lastRetryAfterS = 0;
    for (let i = 0; i < 8; i++) {
      const reply = await call(server.url, 'ping', token);
      statuses.push(reply.status);
      lastRetryAfterS = Number(reply.headers['retry-after'] ?? 0);
      await sleep(300);
    }
    if (name === 'no fault') {
      expect(statuses[0]).toBe(429);
      expect(statuses.at(-1)).toBe(200);
      return;
    }
    expect(tally(statuses)).toEqual({ 429: 8 });
    // waiting out what the last refusal announced, sending nothing, is admitted
    await sleep(lastRetryAfterS * 1000 - 300);
    expect((await call(server.url, 'ping', token)).status).toBe(200);
  });
});
