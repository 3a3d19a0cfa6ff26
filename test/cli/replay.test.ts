/**
 * `rpcload run --replay`: --map-clients is stable (the timing of a replay is judged in
 * replay-timing.test.ts, in the quiet pass);
 * callers without credentials are refused before the run; a HAR capture replays its API calls and
 * skips the rest (its callers named by their token requests, client secret or private_key_jwt);
 * --from/--to/-n/--loop choose the calls; the result file records the source.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerHash } from '../../src/profile/replay-plan.ts';
import { runRpcload } from '../support/cli.ts';
import { startLoggingApi, type Arrival } from '../support/logging-api.ts';
import { expectCallerOrder, replayByCli, writeRecording } from '../support/replay-runs.ts';
import { useTempDir } from '../support/temp-dir.ts';

const dir = useTempDir('rpcload-replay-');
let api: Awaited<ReturnType<typeof startLoggingApi>>;
beforeAll(async () => (api = await startLoggingApi()));
afterAll(() => api.close());

/** A JSONL recording in this file's directory; returns its path. */
const recording = (name: string, calls: readonly object[]): string => writeRecording(dir, name, calls);

/** A replay against the logging API (see replayByCli); with `connections`, through a profile holding that many. */
const replay = (args: readonly string[], clients: readonly string[], connections?: number) =>
  replayByCli(api, dir, args, clients, connections === undefined ? {} : { connections });

/** One HAR entry: a POST to `https://api.example.test/v1/api/METHOD` with its body, bearer token and JSON reply. */
function harEntry(
  startedDateTime: string,
  method: string,
  body: string,
  bearer: string | null,
  reply: object = { status: 'success', data: {} },
) {
  const form = method === 'auth.token';
  return {
    startedDateTime,
    time: 5,
    request: {
      method: 'POST',
      url: `https://api.example.test/v1/api/${method}`,
      httpVersion: 'HTTP/1.1',
      headers: [
        { name: 'content-type', value: form ? 'application/x-www-form-urlencoded' : 'application/json' },
        ...(bearer === null ? [] : [{ name: 'authorization', value: `Bearer ${bearer}` }]),
      ],
      postData: { mimeType: form ? 'application/x-www-form-urlencoded' : 'application/json', text: body },
    },
    response: { status: 200, content: { mimeType: 'application/json', text: JSON.stringify(reply) } },
  };
}

describe('run --replay', () => {
  it('maps callers without a client ID of their own onto the configured ones by a stable hash (--map-clients)', async () => {
    const users = Array.from({ length: 24 }, (_, i) => `user-${i}`);
    const file = recording(
      'users.jsonl',
      Array.from({ length: 96 }, (_, seq) => ({
        t: seq * 3,
        client: users[seq % 24],
        method: 'ping',
        args: { seq, user: users[seq % 24] },
      })),
    );
    const clients = ['c1', 'c2', 'c3'];
    const first = await replay(['--replay', file, '--map-clients'], clients);
    const second = await replay(['--replay', file, '--map-clients'], clients);
    expect(first.code).toBe(0);
    const mapping = (arrivals: Arrival[]) => new Map(arrivals.map((a) => [a.args.user as string, a.client]));
    // Each caller on exactly one client, the one its hash names, and the same in every run.
    for (const user of users) {
      expect(new Set(first.arrivals.filter((a) => a.args.user === user).map((a) => a.client))).toEqual(
        new Set([clients[callerHash(user) % 3]]),
      );
    }
    expect(mapping(second.arrivals)).toEqual(mapping(first.arrivals));
    expect(new Set(first.arrivals.map((a) => a.client)).size).toBe(3);
    expect(first.result!.replay).toMatchObject({ callers: 24, mappedCallers: 24, sent: 96 });
  });

  it('refuses, before the run, callers that have no credentials and no mapping: one line naming them', async () => {
    const file = recording('strangers.jsonl', [
      { t: 0, client: 'c1', method: 'ping', args: {} },
      { t: 5, client: 'mallory', method: 'ping', args: {} },
      { t: 9, client: 'trent', method: 'ping', args: {} },
    ]);
    const { code, stderr, arrivals } = await replay(['--replay', file], ['c1']);
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain('strangers.jsonl: 2 recorded callers have no configured client ID: mallory, trent');
    expect(stderr).toContain('--map-clients');
    expect(arrivals).toEqual([]);
  });

  it('names the file, line and field of a bad record (exit 2)', async () => {
    const file = recording('broken.jsonl', [
      { t: 0, client: 'c1', method: 'ping', args: {} },
      { t: 5, client: 'c1', method: 'no such/method', args: {} },
    ]);
    const { code, stderr } = await replay(['--replay', file], ['c1']);
    expect(code).toBe(2);
    expect(stderr.trim()).toMatch(
      /^rpcload: broken\.jsonl:2: \/method: expected a method name .*, found "no such\/method"$/,
    );
  });

  it('replays a HAR capture: its API calls by the client that fetched their token, token requests and other URLs skipped and counted', async () => {
    const har = fileURLToPath(new URL('../fixtures/replay/capture.har', import.meta.url));
    const { code, result, arrivals } = await replay(['--replay', har], ['web-app']);
    expect(code).toBe(0);
    expect(arrivals.map((a) => [a.client, a.method, a.args])).toEqual([
      ['web-app', 'ping', {}],
      ['web-app', 'echo', { order: 'o-1', note: 'first' }],
      ['web-app', 'echo', { order: 'o-2', note: 'second' }],
    ]);
    // 250 ms apart in the capture (±25 ms).
    expect(arrivals[2]!.atMs - arrivals[1]!.atMs).toBeGreaterThan(225);
    expect(result!.replay).toMatchObject({
      format: 'har',
      calls: 3,
      sent: 3,
      skipped: { 'token request': 1, 'not an API call': 1 },
    });
    // The capture's secret and token never reach the result file.
    const text = JSON.stringify(result);
    expect(text).not.toContain('s3cr3t-web');
    expect(text).not.toContain('tok-web-123');
  });

  it('names a HAR call’s caller from the private_key_jwt assertion of its token request; a malformed one is skipped by name', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const assertion = (claims: { iss: string; sub: string }): Promise<string> =>
      new SignJWT({ jti: Math.random().toString(36).slice(2) })
        .setProtectedHeader({ alg: 'ES256' })
        .setIssuer(claims.iss)
        .setSubject(claims.sub)
        .setAudience('https://api.example.test/v1/api/auth.token')
        .setExpirationTime('5m')
        .sign(privateKey);
    const orders = await assertion({ iss: 'svc-orders', sub: 'svc-orders' });
    const billing = await assertion({ iss: 'https://issuer.example.test', sub: 'billing-sub' }); // iss ≠ sub: the form's client_id decides
    const at = (ms: number): string => new Date(Date.parse('2026-03-10T14:00:00.000Z') + ms).toISOString();
    const tokenRequest = (ms: number, form: Record<string, string>, token: string) =>
      harEntry(
        at(ms),
        'auth.token',
        new URLSearchParams({ grant_type: 'client_credentials', ...form }).toString(),
        null,
        {
          status: 'success',
          data: { access_token: token, token_type: 'Bearer', expires_in: 3600 },
        },
      );
    const jwtBearer = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
    const har = join(dir, 'jwt.har');
    const entries = [
      tokenRequest(0, { client_assertion_type: jwtBearer, client_assertion: orders }, 'tok-orders-1'),
      tokenRequest(
        10,
        { client_assertion_type: jwtBearer, client_assertion: billing, client_id: 'svc-billing' },
        'tok-billing-1',
      ),
      tokenRequest(
        20,
        { client_assertion_type: jwtBearer, client_assertion: 'eyJhbGciOiJFUzI1NiJ9.bm90IGpzb24.c2ln' },
        'tok-broken-1',
      ),
      harEntry(at(100), 'ping', '{"seq":0}', 'tok-orders-1'),
      harEntry(at(150), 'ping', '{"seq":1}', 'tok-billing-1'),
      harEntry(at(200), 'ping', '{"seq":2}', 'tok-orders-1'),
      harEntry(at(250), 'ping', '{"seq":3}', 'tok-broken-1'),
    ];
    writeFileSync(har, JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries } }));
    // The call made with the broken assertion's token has no known caller: --map-clients sends it by a configured client.
    const { code, stderr, result, arrivals } = await replay(
      ['--replay', har, '--map-clients'],
      ['svc-orders', 'svc-billing'],
    );
    expect(code).toBe(0);
    const bySeq = new Map(arrivals.map((a) => [a.args.seq as number, a.client]));
    expect([bySeq.get(0), bySeq.get(1), bySeq.get(2)]).toEqual(['svc-orders', 'svc-billing', 'svc-orders']);
    expect(bySeq.has(3)).toBe(true);
    expect(result!.replay).toMatchObject({
      format: 'har',
      calls: 4,
      sent: 4,
      callers: 3,
      mappedCallers: 1,
      skipped: { 'token request': 2, 'malformed client assertion': 1 },
    });
    // The assertions are credentials: in neither the result file nor the output.
    for (const text of [JSON.stringify(result), stderr])
      for (const jwt of [orders, billing]) expect(text).not.toContain(jwt.split('.')[2]);
  });

  it('replays a window (--from/--to), the first N calls (-n), and loops the window (--loop)', async () => {
    const file = recording(
      'window.jsonl',
      Array.from({ length: 100 }, (_, seq) => ({ t: seq * 10, client: 'c1', method: 'ping', args: { seq } })),
    );
    // Which calls were sent (their order is the first test's business).
    const seqs = (arrivals: Arrival[]) => arrivals.map((a) => a.args.seq as number).sort((a, b) => a - b);
    const windowed = await replay(['--replay', file, '--from', '200ms', '--to', '500ms', '--speed', '4'], ['c1']);
    expect(seqs(windowed.arrivals)).toEqual(Array.from({ length: 30 }, (_, i) => 20 + i));
    expect(windowed.result!.replay).toMatchObject({
      window: { fromMs: 200, toMs: 500 },
      calls: 100,
      callsInWindow: 30,
      sent: 30,
    });
    const firstTen = await replay(['--replay', file, '-n', '10', '--speed', '4'], ['c1']);
    expect(seqs(firstTen.arrivals)).toEqual(Array.from({ length: 10 }, (_, i) => i));
    const looped = await replay(['--replay', file, '--to', '200ms', '--loop', '-n', '50', '--speed', '2'], ['c1']);
    const pass = Array.from({ length: 20 }, (_, i) => i);
    expect(seqs(looped.arrivals)).toEqual([...pass, ...pass, ...pass.slice(0, 10)].sort((a, b) => a - b));
    expect(looped.result!.replay).toMatchObject({ loop: true, maxCalls: 50, sent: 50 });
  });

  it('keeps each caller on one worker, in order, with --workers 2', async () => {
    const callers = ['w1', 'w2', 'w3', 'w4'];
    const file = recording(
      'workers.jsonl',
      Array.from({ length: 120 }, (_, seq) => ({
        t: seq * 4,
        client: callers[seq % 4],
        method: 'ping',
        args: { seq },
      })),
    );
    const { code, result, arrivals } = await replay(['--replay', file, '--workers', '2'], callers, 2);
    expect(code).toBe(0);
    expect(arrivals).toHaveLength(120);
    for (const caller of callers) {
      expect(arrivals.filter((a) => a.client === caller)).toHaveLength(30);
      expectCallerOrder(arrivals, caller);
    }
    expect(result!.replay!.sent).toBe(120);
  });

  it('makes compare refuse to judge replays of different recordings unless told (--allow-different-sources)', async () => {
    const shape = (note: string) =>
      Array.from({ length: 20 }, (_, seq) => ({ t: seq * 5, client: 'c1', method: 'ping', args: { seq, note } }));
    const runOf = async (file: string) => {
      const out = join(dir, `compare-${Math.random().toString(36).slice(2)}.json`);
      const cli = await runRpcload([
        'run',
        '--target',
        api.url,
        '--client',
        'c1:s',
        '--replay',
        file,
        '--ui',
        'none',
        '--out',
        out,
      ]);
      expect(cli.code).toBe(0);
      return out;
    };
    const monday = await runOf(recording('monday.jsonl', shape('monday')));
    const mondayAgain = await runOf(join(dir, 'monday.jsonl'));
    const tuesday = await runOf(recording('tuesday.jsonl', shape('tuesday')));
    const refused = await runRpcload(['compare', monday, tuesday, '--fail-on', 'none']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /they replay different sources \(monday\.jsonl \(sha256 [0-9a-f]{12}…, window 0–end ms\) vs tuesday\.jsonl/,
    );
    expect(refused.stderr).toContain('--allow-different-sources');
    const told = await runRpcload(['compare', monday, tuesday, '--fail-on', 'none', '--allow-different-sources']);
    expect(told.code).toBe(0);
    expect(told.stderr).toContain('warning: the runs replay different sources');
    const same = await runRpcload(['compare', monday, mondayAgain, '--fail-on', 'none']);
    expect(same.code).toBe(0);
    expect(same.stderr).toBe('');
  });
});
