import { connect, type ConnectionOptions } from 'node:tls';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { selfSignedMaterial } from '../../src/server/tls.ts';
import { call, startTestServer, tokenFor } from '../support/server-helpers.ts';

const agents: Agent[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.close()));
});

/** An undici dispatcher trusting `ca`. */
function trusting(ca: string): Agent {
  const agent = new Agent({ connect: { ca } });
  agents.push(agent);
  return agent;
}

/** Handshake only: the negotiated protocol, or the error code of a refused handshake. */
function handshake(port: number, options: ConnectionOptions): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, servername: 'localhost', ...options }, () => {
      resolve(socket.getProtocol() ?? 'unknown');
      socket.end();
    });
    socket.on('error', (err: NodeJS.ErrnoException) => resolve(`error:${err.code ?? err.message}`));
  });
}

/** TLS 1.0/1.1 clients need OpenSSL security level 0 on our side too. */
const LEGACY_CLIENT = { ciphers: 'DEFAULT@SECLEVEL=0' } as const;

describe('TLS', () => {
  it('tls: true serves HTTPS with a generated certificate for 127.0.0.1, trusted via `ca`', async () => {
    const server = await startTestServer({ tls: true });
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(server.certPem).toMatch(/^-----BEGIN CERTIFICATE-----/);
    const dispatcher = trusting(server.certPem!);
    const token = await tokenFor(server.url, 'client-a', 'demo-secret', { dispatcher });
    expect((await call(server.url, 'ping', token, {}, { dispatcher })).json).toEqual({
      status: 'success',
      data: { pong: true },
    });
  });

  it('negotiates TLS ≥ 1.2 and refuses TLS 1.1 and 1.0', async () => {
    const server = await startTestServer({ tls: true });
    const ca = server.certPem!;
    expect(['TLSv1.2', 'TLSv1.3']).toContain(await handshake(server.port, { ca }));
    expect(await handshake(server.port, { ca, minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' })).toBe('TLSv1.2');
    expect(
      await handshake(server.port, { ca, minVersion: 'TLSv1.1', maxVersion: 'TLSv1.1', ...LEGACY_CLIENT }),
    ).toMatch(/^error:/);
    expect(await handshake(server.port, { ca, minVersion: 'TLSv1', maxVersion: 'TLSv1', ...LEGACY_CLIENT })).toMatch(
      /^error:/,
    );
  });

  it('a client that does not trust the certificate fails the handshake', async () => {
    const server = await startTestServer({ tls: true });
    expect(await handshake(server.port, {})).toMatch(/^error:/);
  });

  it('tls-legacy also accepts TLS 1.1 and 1.0 (and still 1.2)', async () => {
    const server = await startTestServer({ tls: true, faults: ['tls-legacy'] });
    const ca = server.certPem!;
    expect(await handshake(server.port, { ca, minVersion: 'TLSv1.1', maxVersion: 'TLSv1.1', ...LEGACY_CLIENT })).toBe(
      'TLSv1.1',
    );
    expect(await handshake(server.port, { ca, minVersion: 'TLSv1', maxVersion: 'TLSv1', ...LEGACY_CLIENT })).toBe(
      'TLSv1',
    );
    expect(await handshake(server.port, { ca, minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' })).toBe('TLSv1.2');
  });

  it('serves a given PEM certificate and key', async () => {
    const material = await selfSignedMaterial();
    const server = await startTestServer({ tls: material });
    expect(server.certPem).toBe(material.cert);
    const dispatcher = trusting(material.cert);
    expect((await call(server.url, 'ping', undefined, {}, { dispatcher })).status).toBe(401); // served over TLS
  });

  it('rejects a certificate that is not PEM', async () => {
    await expect(startTestServer({ tls: { cert: 'nope', key: 'nope' } })).rejects.toThrow(/must be PEM/);
  });
});
