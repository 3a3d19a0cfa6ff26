/**
 * HAR captures as browsers and proxies write them, replayed against a real server on 127.0.0.1: a
 * token request whose form is in `postData.params` (HAR 1.2 allows it instead of `text`), calls
 * without a known caller (the refusal says why), a body that is not JSON args and a third-party
 * endpoint under an `/api/` path (each skipped and counted, not the whole capture refused), and
 * `--replay-host` choosing the API's host.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoggingApi } from '../support/logging-api.ts';
import { replayByCli } from '../support/replay-runs.ts';
import { useTempDir } from '../support/temp-dir.ts';

const dir = useTempDir('rpcload-har-captures-');
let api: Awaited<ReturnType<typeof startLoggingApi>>;
beforeAll(async () => (api = await startLoggingApi()));
afterAll(() => api.close());

const at = (ms: number): string => new Date(Date.parse('2026-03-10T14:00:00.000Z') + ms).toISOString();

interface EntryOptions {
  /** `https://api.example.test` unless given. */
  readonly origin?: string;
  readonly bearer?: string;
  /** The body as `postData.text`, or as `postData.params` (form pairs, no text). */
  readonly text?: string;
  readonly params?: readonly (readonly [string, string])[];
  readonly reply?: object;
}

/** One HAR entry: a POST to `{origin}/v1/api/{method}`. */
function entry(ms: number, method: string, o: EntryOptions) {
  const form = o.params !== undefined;
  return {
    startedDateTime: at(ms),
    time: 5,
    request: {
      method: 'POST',
      url: `${o.origin ?? 'https://api.example.test'}/v1/api/${method}`,
      httpVersion: 'HTTP/1.1',
      headers: [
        { name: 'content-type', value: form ? 'application/x-www-form-urlencoded' : 'application/json' },
        ...(o.bearer === undefined ? [] : [{ name: 'authorization', value: `Bearer ${o.bearer}` }]),
      ],
      postData: form
        ? { mimeType: 'application/x-www-form-urlencoded', params: o.params.map(([name, value]) => ({ name, value })) }
        : { mimeType: 'application/json', text: o.text ?? '{}' },
    },
    response: {
      status: 200,
      content: { mimeType: 'application/json', text: JSON.stringify(o.reply ?? { status: 'success', data: {} }) },
    },
  };
}

const tokenReply = (token: string) => ({
  status: 'success',
  data: { access_token: token, token_type: 'Bearer', expires_in: 3600 },
});

function har(name: string, entries: readonly object[]): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries } }));
  return path;
}

// Each test starts one to three CLI processes: allow for a busy machine.
describe('HAR captures from real browsers and proxies', { timeout: 120_000 }, () => {
  it('knows the caller of a token request whose form is in postData.params only (decoded or URL-encoded values)', async () => {
    const file = har('params.har', [
      entry(0, 'auth.token', {
        params: [
          ['grant_type', 'client_credentials'],
          ['client_id', 'web-app'],
          ['client_secret', 'not-this-one'],
        ],
        reply: tokenReply('tok-a'),
      }),
      // Chrome writes params' values URL-encoded.
      entry(5, 'auth.token', {
        params: [
          ['grant_type', 'client_credentials'],
          ['client_id', 'svc%2Dbilling'],
        ],
        reply: tokenReply('tok-b'),
      }),
      entry(100, 'ping', { bearer: 'tok-a', text: '{"seq":0}' }),
      entry(150, 'ping', { bearer: 'tok-b', text: '{"seq":1}' }),
    ]);
    const { code, stderr, result, arrivals } = await replayByCli(
      api,
      dir,
      ['--replay', file],
      ['web-app', 'svc-billing'],
    );
    expect(code, stderr).toBe(0);
    expect(arrivals.map((a) => [a.args.seq, a.client]).sort()).toEqual([
      [0, 'web-app'],
      [1, 'svc-billing'],
    ]);
    expect(result!.replay).toMatchObject({ calls: 2, sent: 2, callers: 2, skipped: { 'token request': 2 } });
  });

  it('refuses calls without a known caller saying why they have none', async () => {
    const file = har('anonymous.har', [
      entry(0, 'auth.token', { text: 'grant_type=client_credentials', reply: tokenReply('tok-x') }),
      entry(100, 'ping', { bearer: 'tok-x' }),
      entry(200, 'ping', {}),
    ]);
    const { code, stderr, arrivals } = await replayByCli(api, dir, ['--replay', file], ['web-app']);
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain(
      'anonymous.har: 1 recorded caller has no configured client ID: (unknown caller); (unknown caller) is ' +
        '1 call whose bearer token no token request of the capture issued to a named client and 1 call without a bearer token; ' +
        "of the capture's token requests, 1 named no client (no client_id in the form, no client assertion, no user in an Authorization header); " +
        'configure them',
    );
    expect(stderr).toContain('--map-clients');
    expect(arrivals).toEqual([]);
  });

  it('skips and counts, by reason, a body that is not JSON args and API-like calls to another host; --replay-host chooses the host', async () => {
    const file = har('mixed.har', [
      entry(0, 'auth.token', {
        params: [
          ['grant_type', 'client_credentials'],
          ['client_id', 'web-app'],
        ],
        reply: tokenReply('tok-w'),
      }),
      entry(50, 'track', { origin: 'https://analytics.example.net', text: '{"event":"open"}' }),
      entry(100, 'ping', { bearer: 'tok-w', text: '{"seq":0}' }),
      entry(150, 'orders.upload', { bearer: 'tok-w', text: '------boundary\r\nContent-Disposition: form-data' }),
      entry(200, 'track', { origin: 'https://analytics.example.net', text: '{"event":"click"}' }),
      entry(250, 'ping', { bearer: 'tok-w', text: '{"seq":1}' }),
    ]);
    const api_ = await replayByCli(api, dir, ['--replay', file], ['web-app']);
    expect(api_.code, api_.stderr).toBe(0);
    expect(api_.arrivals.map((a) => [a.method, a.args.seq])).toEqual([
      ['ping', 0],
      ['ping', 1],
    ]);
    expect(api_.result!.replay).toMatchObject({
      calls: 2,
      sent: 2,
      skipped: { 'token request': 1, 'another host': 2, 'args not JSON': 1 },
    });
    const named =
      'mixed.har: API calls to other hosts than api.example.test were skipped: analytics.example.net (2); --replay-host chooses the API';
    expect(api_.result!.warnings).toContainEqual(expect.stringContaining(named));
    expect(api_.stdout).toMatch(
      /^warnings +! mixed\.har: API calls to other hosts than api\.example\.test were skipped/m,
    );
    expect(api_.stdout).toMatch(
      /^replay +mixed\.har: 2 sent of 2 calls in the window; not replayed: another host 2, token request 1, args not JSON 1$/m,
    );

    // The analytics host's calls, by a configured client (the capture has no token request for them).
    const analytics = await replayByCli(
      api,
      dir,
      ['--replay', file, '--replay-host', 'analytics.example.net', '--map-clients'],
      ['web-app'],
    );
    expect(analytics.code, analytics.stderr).toBe(0);
    expect(analytics.arrivals.map((a) => [a.method, a.args.event])).toEqual([
      ['track', 'open'],
      ['track', 'click'],
    ]);
    expect(analytics.result!.replay!.skipped).toMatchObject({ 'another host': 4 });

    const nowhere = await replayByCli(
      api,
      dir,
      ['--replay', file, '--replay-host', 'nowhere.example.org'],
      ['web-app'],
    );
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr.trim()).toBe(
      'rpcload: mixed.har: no API call goes to the host nowhere.example.org (--replay-host); its API calls go to api.example.test (4), analytics.example.net (2)',
    );
  });
});
