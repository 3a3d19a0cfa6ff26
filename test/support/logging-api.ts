/** An API that issues `tok-<client>` tokens to anyone and logs every other call as it arrives. */
import { sendJson, startScriptedServer, type TestServer } from './http-server.ts';

/** A call as the server saw it: when (ms, its own clock), by which client (from the bearer token), what. */
export interface Arrival {
  readonly atMs: number;
  readonly client: string;
  readonly method: string;
  readonly args: Record<string, unknown>;
}

export async function startLoggingApi(): Promise<TestServer & { readonly arrivals: Arrival[] }> {
  const arrivals: Arrival[] = [];
  const server = await startScriptedServer((req, res) => {
    if (req.url.endsWith('/api/auth.token')) {
      const client = new URLSearchParams(req.body).get('client_id') ?? '?';
      return sendJson(res, 200, {
        status: 'success',
        data: { access_token: `tok-${client}`, token_type: 'Bearer', expires_in: 3600 },
      });
    }
    const client = String(req.headers.authorization ?? '').replace(/^Bearer tok-/, '');
    const method = req.url.replace(/^.*\/api\//, '');
    arrivals.push({
      atMs: performance.now(),
      client,
      method,
      args: JSON.parse(req.body || '{}') as Record<string, unknown>,
    });
    sendJson(res, 200, { status: 'success', data: {} });
  });
  return Object.assign(server, { arrivals });
}
