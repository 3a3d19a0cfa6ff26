// test-pass: quiet
/**
 * `rpcload run --replay`: recorded calls reach a real server on 127.0.0.1 at their recorded offset
 * ÷ speed, each by its caller's client ID and in its caller's order; --map-clients is stable;
 * callers without credentials are refused before the run; a HAR capture replays its API calls and
 * skips the rest (its callers named by their token requests, client secret or private_key_jwt);
 * --from/--to/-n/--loop choose the calls; the result file records the source.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { callerHash } from '../../src/profile/replay-plan.ts';
import { runRpcload } from '../support/cli.ts';
import { startLoggingApi, type Arrival } from '../support/logging-api.ts';
import { useTempDir } from '../support/temp-dir.ts';

const dir = useTempDir('rpcload-replay-');
let api: Awaited<ReturnType<typeof startLoggingApi>>;
beforeAll(async () => (api = await startLoggingApi()));
afterAll(() => api.close());

/** Write a JSONL recording; returns its path. */
function recording(name: string, calls: readonly object[]): string {
  const path = join(dir, name);
  writeFileSync(path, calls.map((call) => JSON.stringify(call)).join('\n') + '\n');
  return path;
}

/**
 * Run a replay against the logging API; returns the exit code, stderr, result file and the calls
 * the server saw. With `connections`, through a profile holding that many connections (one: the
 * server sees the calls in the order they were sent).
 */
async function replay(args: readonly string[], clients: readonly string[], connections?: number) {
  api.arrivals.length = 0;
  const name = Math.random().toString(36).slice(2);
  const out = join(dir, `result-${name}.json`);
  const profile = join(dir, `profile-${name}.json`);
  writeFileSync(
    profile,
    JSON.stringify({
      target: api.url,
      clients: { list: clients.map((id) => ({ id, secret: `secret-${id}` })) },
      http: { connections },
    }),
  );
  const how =
    connections === undefined
      ? ['--target', api.url, ...clients.flatMap((id) => ['--client', `${id}:secret-${id}`])]
      : [profile];
  const cli = await runRpcload(['run', ...how, '--ui', 'none', '--out', out, ...args]);
  const result = cli.code === 2 ? null : (JSON.parse(readFileSync(out, 'utf8')) as RunResult);
  return { code: cli.code, stderr: cli.stderr, result, arrivals: [...api.arrivals] };
}

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

/** Seeded, so the recording is the same every run. */
function lcg(seed: number): () => number {
  let state = seed;
  return () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/**
 * A caller's calls reached the server in recorded order. (Over one connection the server sees the
 * send order; over many, two calls sent a moment apart may cross on the way, as a real client's
 * would, and a stalled test process reads its sockets in no particular order.)
 */
function expectCallerOrder(arrivals: readonly Arrival[], caller: string): void {
  const seqs = arrivals.filter((a) => a.client === caller).map((a) => a.args.seq as number);
  expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
}

describe('run --replay', () => {
  it('sends each call at its recorded offset ÷ speed (±25 ms for 99 %), by its caller, in its caller’s order', async () => {
    const random = lcg(7);
    const callers = ['alice', 'bob', 'carol', 'dave'];
    const calls: { t: number; client: string; method: string; args: { seq: number } }[] = [];
    // The calls start 1 s into the recording: what is judged is the steady state, not the
    // process's first moments on a busy machine (JIT, the first reads).
    let t = 1000;
    for (let seq = 0; seq < 400; seq++) {
      t += random() < 0.1 ? 40 + random() * 60 : random() * 8; // bursts and pauses, like real traffic
      calls.push({
        t: Math.round(t * 10) / 10,
        client: callers[seq % 4]!,
        method: seq % 3 === 0 ? 'orders.get' : 'ping',
        args: { seq },
      });
    }
    const file = recording('timed.jsonl', calls);
    const speed = 2;
    const { code, result, arrivals } = await replay(['--replay', file, '--speed', String(speed)], callers);
    expect(code).toBe(0);
    expect(arrivals).toHaveLength(400);
    // Every call by its own caller's client, each caller's calls in their recorded order.
    for (const arrival of arrivals) expect(arrival.client).toBe(callers[(arrival.args.seq as number) % 4]);
    const bySend = await replay(['--replay', file, '--speed', '8'], callers, 1);
    expect(bySend.arrivals).toHaveLength(400);
    for (const caller of callers) expectCallerOrder(bySend.arrivals, caller);
    // Arrival − recorded offset ÷ speed, aligned on its median: the server's clock and the run's
    // differ by a constant. Judged when the generator had the CPU: on a machine so busy that its
    // own schedule lag p99 passed 25 ms, the run must say so instead (and the server, in this
    // process, stalls as much).
    const lagP99 = result!.summary.scheduleLagMs!.p99;
    if (lagP99 > 25) {
      expect(result!.warnings.join('\n')).toMatch(
        /schedule lag p99 [\d.]+ ms: the load generator, not the server, was the bottleneck/,
      );
      console.warn(`replay timing not judged: the machine is too busy (schedule lag p99 ${lagP99} ms)`);
    } else expectOnTime();
    function expectOnTime(): void {
      const offsets = arrivals.map((a) => a.atMs - calls[a.args.seq as number]!.t / speed);
      const median = [...offsets].sort((a, b) => a - b)[Math.floor(offsets.length / 2)]!;
      const errors = offsets.map((o) => Math.abs(o - median)).sort((a, b) => a - b);
      expect(errors[Math.floor(errors.length * 0.99) - 1]!).toBeLessThan(25);
    }
    // The source record: the file as it is, what was read and sent.
    const bytes = readFileSync(file);
    expect(result!.replay).toMatchObject({
      file: 'timed.jsonl',
      format: 'jsonl',
      bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      speed: 2,
      loop: false,
      calls: 400,
      callsInWindow: 400,
      sent: 400,
      callers: 4,
      mappedCallers: 0,
    });
    expect(Object.keys(result!.byMethod).sort()).toEqual(['orders.get', 'ping']);
    expect(result!.summary.scheduleLagMs).not.toBeNull();
  });

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
