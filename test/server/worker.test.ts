import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { RpcloadError } from '../../src/errors.ts';
import { startServer } from '../../src/server/start-server.ts';
import { startServerInWorker } from '../../src/server/worker.ts';
import type { RemoteServerHandle } from '../../src/server/options.ts';
import { call, tokenFor } from '../support/server-helpers.ts';

const remotes: RemoteServerHandle[] = [];
afterEach(async () => {
  await Promise.all(remotes.splice(0).map((remote) => remote.close()));
});

describe('startServerInWorker', () => {
  it('serves from a worker thread (here over TLS); certificate, stats, revocation and close cross over', async () => {
    const remote = await startServerInWorker({ limit: 2, windowMs: 60_000, tls: true });
    remotes.push(remote);
    expect(remote.url).toBe(`https://127.0.0.1:${remote.port}`);
    const dispatcher = new Agent({ connect: { ca: remote.certPem } });
    try {
      const token = await tokenFor(remote.url, 'client-a', 'demo-secret', { dispatcher });
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await call(remote.url, 'ping', token, {}, { dispatcher })).status);
      expect(statuses).toEqual([200, 200, 429]);
      expect(await remote.stats()).toMatchObject({
        tokensIssued: 1,
        byClient: { 'client-a': { admitted: 2, refused: 1 } },
      });
      await remote.revokeTokens('client-a');
      expect((await call(remote.url, 'ping', token, {}, { dispatcher })).status).toBe(401);
      await remote.close();
      await expect(call(remote.url, 'ping', token, {}, { dispatcher })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
      await expect(remote.stats()).rejects.toThrow(/exited/);
    } finally {
      await dispatcher.close();
    }
  });

  it('works from the built JavaScript too (dist/, no tsx)', async () => {
    const built = new URL('../../dist/server/worker.js', import.meta.url);
    expect(existsSync(built), 'run npm run build first').toBe(true);
    const script = `
      import { startServerInWorker } from ${JSON.stringify(built.href)};
      const remote = await startServerInWorker();
      const reply = await fetch(remote.url + '/api/ping', { method: 'POST' });
      console.log(reply.status, JSON.stringify(await remote.stats()));
      await remote.close();`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      timeout: 20_000,
    });
    expect(stdout.trim()).toBe('401 {"requests":1,"tokensIssued":0,"byClient":{},"byStatus":{"401":1}}');
  });

  it('rejects with an RpcloadError for bad options', async () => {
    const error: unknown = await startServerInWorker({ limit: -1 }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(RpcloadError);
    expect((error as Error).message).toMatch(/invalid server options: limit must be a positive integer/);
  });

  it('rejects with an RpcloadError for a taken port', async () => {
    const blocker = await startServer();
    try {
      const error: unknown = await startServerInWorker({ port: blocker.port }).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(RpcloadError);
      expect((error as Error).message).toBe(`cannot listen on 127.0.0.1:${blocker.port}: address already in use`);
    } finally {
      await blocker.close();
    }
  });
});
