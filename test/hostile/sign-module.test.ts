/**
 * Sign modules that return what the HTTP client owns, or never answer (issue 32 §12, §15), on both
 * clients alike:
 * - a `host` (a signature over the host, as AWS SigV4's) is the request's one Host — before, the
 *   default client sent it beside its own, and nginx refused every request with 400;
 * - Content-Length, Transfer-Encoding and the connection's headers are refused as `sign:error`
 *   with the reason, never written beside the client's own (a desynchronised request);
 * - a module whose promise never settles is named as the culprit (`sign:error`, "the sign module …
 *   did not answer"), not reported as a server that stalled: nothing was sent.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClientName } from '../../src/profile/plan.ts';
import { HTTP_CLIENTS } from '../../src/profile/schema-settings.ts';
import { runPlan, testPlan } from '../support/load-run.ts';
import { startNginx, type ProxyServer } from '../support/proxy-servers.ts';
import { apiRequests, startHostileApi, answerSuccess } from '../support/stalling-api.ts';
import { requireProgram } from '../support/system-program.ts';
import { useTempDir } from '../support/temp-dir.ts';

const SUCCESS = '{"status":"success","data":{}}';
const TOKEN = '{"status":"success","data":{"access_token":"t","token_type":"Bearer","expires_in":3600}}';
const dir = useTempDir('rpcload-sign-');

/** A sign module returning `headers` (JavaScript object source), or `body` as the function's whole body. */
function signModule(name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `export default function sign() { ${body} }\n`);
  return path;
}

const SIGNED_HOST = signModule('host.mjs', "return { host: 'api.example.test', 'x-signature': 'sig-1' };");
const CONTENT_LENGTH = signModule('content-length.mjs', "return { 'Content-Length': '5', 'x-signature': 'sig-1' };");
const TRANSFER_ENCODING = signModule('transfer-encoding.mjs', "return { 'transfer-encoding': 'chunked' };");
const NEVER = signModule('never.mjs', 'return new Promise(() => {});');

function signedCalls(target: string, client: HttpClientName, sign: string, method: string, http: object = {}) {
  return testPlan(
    {
      clients: { list: [{ id: `c-${client}`, secret: '${SECRET}' }] },
      rateLimit: { limit: 1_000_000 },
      sign,
      scenarios: [{ name: 'signed', steps: [{ method }] }],
      phases: [{ name: 'steady', duration: '1s', rate: 10 }],
      http: { client, ...http },
    },
    target,
  );
}

const nginx = requireProgram('nginx', { package: 'nginx-light' });

describe.skipIf(nginx.path === null)(`a sign module's headers, through nginx${nginx.skipNote}`, () => {
  let proxy: ProxyServer;
  beforeAll(async () => {
    proxy = await startNginx(
      nginx.path!,
      useTempDir('rpcload-nginx-'),
      '',
      `location = /api/auth.token { return 200 '${TOKEN}'; }
    location /api/ { return 200 '${SUCCESS}'; }`,
    );
  }, 20_000);
  afterAll(() => proxy?.close());

  const logged = (line: string): number => proxy.accessLog().filter((l) => l === line).length;

  it.each(HTTP_CLIENTS)('%s: a signed host is the one Host nginx sees, and every request succeeds', async (client) => {
    const method = `host-${client}`;
    const { result } = await runPlan(signedCalls(proxy.url, client, SIGNED_HOST, method), proxy.url);
    expect(result.summary.outcomes).toEqual({ success: result.summary.requests });
    expect(logged(`200 /api/${method} api.example.test`)).toBe(result.summary.requests);
  });

  it.each(HTTP_CLIENTS)('%s: a signed Content-Length is refused as sign:error, and nothing is sent', async (client) => {
    const method = `length-${client}`;
    const { result, recorded } = await runPlan(signedCalls(proxy.url, client, CONTENT_LENGTH, method), proxy.url);
    expect(result.summary.outcomes).toEqual({ 'sign:error': result.summary.requests });
    expect(recorded.recentErrors.map((e) => e.detail)).toEqual([
      expect.stringMatching(/^the sign function returned a content-length header: the HTTP client frames the request/),
    ]);
    expect(proxy.accessLog().filter((line) => line.includes(`/api/${method}`))).toEqual([]);
  });
});

describe.concurrent.each(HTTP_CLIENTS)('client %s: a sign module', (client) => {
  it('returning transfer-encoding: sign:error with the reason, nothing sent', async ({ expect, onTestFinished }) => {
    const server = await startHostileApi(answerSuccess);
    onTestFinished(() => server.close());
    const { result, recorded } = await runPlan(signedCalls(server.url, client, TRANSFER_ENCODING, 'ping'), server.url);
    expect(result.summary.outcomes).toEqual({ 'sign:error': result.summary.requests });
    expect(recorded.recentErrors[0]?.detail).toMatch(/returned a transfer-encoding header/);
    expect(apiRequests(server)).toBe(0);
  });

  it('that never answers: sign:error naming it, not a stalled server', async ({ expect, onTestFinished }) => {
    const server = await startHostileApi(answerSuccess);
    onTestFinished(() => server.close());
    const plan = signedCalls(server.url, client, NEVER, 'ping', { requestTimeout: '300ms' });
    const { result, recorded } = await runPlan(plan, server.url);
    expect(result.summary.requests).toBeGreaterThanOrEqual(8);
    expect(result.summary.outcomes).toEqual({ 'sign:error': result.summary.requests });
    const details = recorded.recentErrors.map((e) => e.detail);
    // Past their deadline during the run; the last ones at its end.
    const deadline = 'sign:timeout: the sign module never.mjs did not answer within the request deadline (300 ms)';
    expect(details).toContain(deadline);
    for (const detail of details) expect(detail).toMatch(/^sign:timeout: the sign module never\.mjs did not answer /);
    expect(result.warnings.filter((w) => w.includes('stalled'))).toEqual([]);
    expect(apiRequests(server)).toBe(0);
  });
});
