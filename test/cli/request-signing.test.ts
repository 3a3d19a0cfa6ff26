/**
 * Request signing end to end: the HMAC-SHA256 example of docs/profiles.md, run as written by
 * `rpcload run` (one thread and worker threads) and `rpcload verify`, against a server that
 * recomputes every signature from the bytes it received and refuses any that differs. A sign
 * function that throws or returns no headers object makes `sign:error` outcomes, never a crash; a
 * module without a function is one line and exit 2.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { runRpcload } from '../support/cli.ts';
import { codeExampleAfter } from '../support/doc-examples.ts';
import { TempDir } from '../support/test-certificates.ts';

const PROFILES_DOC = fileURLToPath(new URL('../../docs/profiles.md', import.meta.url));
const CLIENT_SECRETS: Record<string, string> = { 'app-1': 'secret-one-4d1f', 'app-2': 'secret-two-9c2e' };
/** app-1 signs with a signing secret of its own; app-2 with its client secret. */
const SIGNING_SECRETS: Record<string, string> = { 'app-1': 'signing-key-7a3b', 'app-2': CLIENT_SECRETS['app-2']! };

/** A server that checks the example's signature on every API call (and issues tokens without one). */
class SignatureCheckingServer {
  good = 0;
  bad = 0;
  unsigned = 0;
  readonly tokens = new Map<string, string>();
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.answer(req, Buffer.concat(chunks), res));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private answer(req: IncomingMessage, body: Buffer, res: ServerResponse): void {
    const reply = (status: number, payload: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    if (req.url === '/api/auth.token') {
      const form = new URLSearchParams(body.toString());
      const id = form.get('client_id') ?? '';
      if (CLIENT_SECRETS[id] !== form.get('client_secret'))
        return reply(401, { status: 'error', error: 'invalid_client' });
      const token = randomBytes(16).toString('hex');
      this.tokens.set(token, id);
      return reply(200, { status: 'success', data: { access_token: token, token_type: 'Bearer', expires_in: 3600 } });
    }
    const client = this.tokens.get(/^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '');
    const signature = req.headers['x-signature'];
    if (client === undefined) {
      if (signature === undefined) this.unsigned++;
      return reply(401, { status: 'error', error: 'invalid_token' });
    }
    const timestamp = String(req.headers['x-timestamp'] ?? '');
    const expected = `sha256=${createHmac('sha256', SIGNING_SECRETS[client]!).update(`${timestamp}\n${req.method}\n${req.url}\n`).update(body).digest('hex')}`;
    const fresh = Math.abs(Date.now() / 1000 - Number(timestamp)) < 30;
    const same =
      typeof signature === 'string' &&
      signature.length === expected.length &&
      timingSafeEqual(Buffer.from(signature), Buffer.from(expected));
    if (!same || !fresh || req.headers['x-client-id'] !== client) {
      this.bad++;
      return reply(401, { status: 'error', error: 'bad_signature' });
    }
    this.good++;
    // A body digest in the reply lets the test see the signed bytes were the parsed ones.
    reply(200, { status: 'success', data: { sha256: createHash('sha256').update(body).digest('hex') } });
  }
}

let dir: TempDir;
let server: SignatureCheckingServer;
beforeAll(async () => {
  dir = new TempDir();
  dir.write('sign.mjs', codeExampleAfter(PROFILES_DOC, '### Request signing', 'js'));
  server = new SignatureCheckingServer();
  await server.start();
});
afterAll(async () => {
  await server.close();
  dir.remove();
});

function profile(name: string, sign: string, extra: Record<string, unknown> = {}): string {
  return dir.write(
    `${name}.profile.json`,
    JSON.stringify({
      name,
      target: server.url,
      sign,
      clients: {
        list: [
          { id: 'app-1', secret: CLIENT_SECRETS['app-1'], signingSecret: SIGNING_SECRETS['app-1'] },
          { id: 'app-2', secret: CLIENT_SECRETS['app-2'] },
        ],
      },
      scenarios: [
        { steps: [{ method: 'echo', args: { n: '{{int 1 1000000}}', who: '{{client.id}}', pad: '{{pad 300}}' } }] },
      ],
      phases: [{ duration: '1s', rate: 30 }],
      ...extra,
    }),
  );
}

const result = (path: string): RunResult => JSON.parse(readFileSync(path, 'utf8')) as RunResult;

describe('request signing', () => {
  it('signs every request with the documented HMAC example, and the server verifies each one', async () => {
    const before = { good: server.good, bad: server.bad };
    const out = `${dir.path}/hmac.json`;
    const run = await runRpcload(['run', profile('hmac', './sign.mjs'), '--ui', 'none', '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    const r = result(out);
    expect(r.summary.requests).toBeGreaterThanOrEqual(25);
    expect(r.summary.outcomes).toEqual({ success: r.summary.requests });
    expect(server.good - before.good).toBe(r.summary.requests);
    expect(server.bad - before.bad).toBe(0);
    // the signing secrets are secrets: in no output
    for (const text of [run.stdout, run.stderr, readFileSync(out, 'utf8')])
      for (const secret of Object.values(SIGNING_SECRETS)) expect(text).not.toContain(secret);
  });

  it('loads the module in every worker thread', async () => {
    const before = { good: server.good, bad: server.bad };
    const out = `${dir.path}/workers.json`;
    const run = await runRpcload([
      'run',
      profile('workers', './sign.mjs'),
      '--workers',
      '2',
      '--ui',
      'none',
      '--out',
      out,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(result(out).run.workers).toBe(2);
    expect(server.good - before.good).toBe(result(out).summary.requests);
    expect(server.bad - before.bad).toBe(0);
  });

  it('verify signs its requests too (those made as no client go unsigned)', async () => {
    const before = { good: server.good, bad: server.bad };
    const out = `${dir.path}/verify.json`;
    const run = await runRpcload([
      'verify',
      profile('verify', './sign.mjs'),
      '--only',
      'envelope,auth.missing_token',
      '--ui',
      'none',
      '--out',
      out,
    ]);
    expect(run.stderr).not.toMatch(/bad_signature|sign:error/);
    expect(server.good).toBeGreaterThan(before.good);
    expect(server.bad - before.bad).toBe(0);
    expect(server.unsigned).toBeGreaterThan(0);
  });

  it.each([
    [
      'throws',
      'export default ({ clientId }) => { if (clientId === "app-2") throw new Error("no key for " + clientId); return {}; };',
      /no key for app-2/,
    ],
    [
      'returns no headers object',
      'export default ({ clientId }) => (clientId === "app-2" ? 42 : {});',
      /returned number/,
    ],
    [
      'rejects',
      'export default async ({ clientId }) => { if (clientId === "app-2") throw new Error("async failure"); return {}; };',
      /async failure/,
    ],
    [
      'returns a bad header',
      'export default ({ clientId }) => (clientId === "app-2" ? { "bad name": "x" } : {});',
      /invalid header name/,
    ],
  ])('a sign function that %s makes sign:error outcomes, and the run goes on', async (name, source) => {
    dir.write(`${name}.mjs`, source);
    const out = `${dir.path}/${name}.json`;
    const run = await runRpcload([
      'run',
      profile(`failing-${name.replace(/\W/g, '')}`, `./${name}.mjs`),
      '--ui',
      'none',
      '--out',
      out,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const r = result(out);
    expect(r.summary.outcomes['sign:error']).toBeGreaterThan(0);
    expect(r.byClient['app-2']!.outcomes).toEqual({ 'sign:error': r.byClient['app-2']!.requests });
    // app-1's requests went out unsigned (the function returned {} for it): refused by this server, but sent
    expect(r.byClient['app-1']!.outcomes['sign:error']).toBeUndefined();
    expect(run.stderr).not.toMatch(/at .*\.(m?js|ts):\d+/); // no stack trace
  });

  it('a module without a function is one line, exit 2', async () => {
    dir.write('nothing.mjs', 'export const answer = 42;');
    const run = await runRpcload([
      'run',
      profile('nothing', './nothing.mjs'),
      '--ui',
      'none',
      '--out',
      `${dir.path}/nothing-out.json`,
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(
      /sign module .*nothing\.mjs: expected a module exporting one function \(its default export\), found no exported function/,
    );
  });

  it('a sign file that does not exist is a profile problem', async () => {
    const run = await runRpcload(['profile', 'validate', profile('missing', './missing.mjs')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /\/sign: expected a JavaScript module file \(relative to the profile\), found "\.\/missing\.mjs": no such file/,
    );
  });
});
