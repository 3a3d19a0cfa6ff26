/**
 * A stateful RPC API on 127.0.0.1 for flow and data-file tests: orders that a client creates,
 * reads back and deletes. An order belongs to the client that created it: any other client (and
 * an id that never existed or was deleted) gets `not_found`. Every API call is logged with its
 * caller, so a test can prove what the load did (each get used an id its own client created; each
 * data row was sent once). Token requests follow the conventions (form-encoded client
 * credentials, any client id with the given secret).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One API call as the server handled it. */
export interface LoggedCall {
  readonly client: string;
  readonly method: string;
  readonly args: Record<string, unknown>;
  /** success or the error code returned. */
  readonly outcome: string;
  /** When it arrived (performance.now(), ms). */
  readonly atMs: number;
}

export interface StatefulApi {
  readonly url: string;
  readonly log: LoggedCall[];
  /** Order id → the client that created it (deleted orders included). */
  readonly creators: ReadonlyMap<string, string>;
  close(): Promise<void>;
}

export interface StatefulApiOptions {
  readonly secret: string;
  /** Reply `data` of orders.get without its `state` (to break a flow's expectation); default false. */
  readonly omitState?: boolean;
}

export async function startStatefulApi(options: StatefulApiOptions): Promise<StatefulApi> {
  const log: LoggedCall[] = [];
  const tokens = new Map<string, string>();
  const orders = new Map<string, { owner: string; item: unknown; state: string }>();
  const creators = new Map<string, string>();
  let next = 0;

  const reply = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const handle = (req: IncomingMessage, body: string, res: ServerResponse): void => {
    const atMs = performance.now();
    const method = (req.url ?? '').replace(/^\/api\//, '');
    if (method === 'auth.token') {
      const form = new URLSearchParams(body);
      const id = form.get('client_id') ?? '';
      if (form.get('client_secret') !== options.secret)
        return reply(res, 401, { status: 'error', error: 'invalid_client' });
      const token = `t-${id}-${tokens.size}`;
      tokens.set(token, id);
      return reply(res, 200, {
        status: 'success',
        data: { access_token: token, token_type: 'Bearer', expires_in: 3600 },
      });
    }
    const client = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
    if (client === undefined) {
      res.setHeader('www-authenticate', 'Bearer error="invalid_token"');
      return reply(res, 401, { status: 'error', error: 'invalid_token' });
    }
    let args: Record<string, unknown>;
    try {
      args = JSON.parse(body) as Record<string, unknown>;
    } catch {
      return reply(res, 400, { status: 'error', error: 'invalid_json' });
    }
    const answer = (outcome: string, data?: Record<string, unknown>): void => {
      log.push({ client, method, args, outcome, atMs });
      if (outcome === 'success') reply(res, 200, { status: 'success', data: data ?? {} });
      else reply(res, 400, { status: 'error', error: outcome });
    };
    const id = typeof args.id === 'string' ? args.id : '';
    const order = orders.get(id);
    switch (method) {
      case 'orders.create': {
        const created = `o-${++next}`;
        orders.set(created, { owner: client, item: args.item ?? null, state: 'open' });
        creators.set(created, client);
        return answer('success', {
          id: created,
          state: 'open',
          items: [{ sku: typeof args.item === 'string' ? args.item : 'none' }],
        });
      }
      case 'orders.get':
        if (order?.owner !== client) return answer('not_found');
        return answer(
          'success',
          options.omitState ? { id, item: order.item } : { id, item: order.item, state: order.state },
        );
      case 'orders.delete':
        if (order?.owner !== client) return answer('not_found');
        orders.delete(id);
        return answer('success', { id, deleted: true });
      default:
        return answer('success', { echo: args });
    }
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, Buffer.concat(chunks).toString('utf8'), res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    creators,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
