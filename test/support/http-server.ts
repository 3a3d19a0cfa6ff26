import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';

/** A request as the test server saw it. */
export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

export interface TestServer {
  readonly url: string;
  readonly seen: SeenRequest[];
  /** TCP connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

/**
 * A scripted HTTP server on 127.0.0.1 for tests that must control the exact bytes of a reply
 * (hostile or unusual servers). Prefer the reference server where its behaviour suffices.
 */
export async function startScriptedServer(
  respond: (req: SeenRequest, res: ServerResponse) => void,
): Promise<TestServer> {
  const seen: SeenRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push(request);
      respond(request, res);
    });
  });
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Send a JSON reply. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

/** A request head as a raw-socket server read it: the request line and headers, plus the body bytes read so far. */
export interface RawRequest {
  readonly method: string;
  readonly path: string;
  readonly head: string;
  readonly body: Buffer;
}

/**
 * A raw TCP server on 127.0.0.1 for behaviour no HTTP library would produce: trickling or endless bodies, garbage
 * instead of a status line, resets mid-reply, oversized headers, never answering. `onRequest` gets each request head
 * (read up to the blank line and the body's Content-Length) and the socket, and writes whatever bytes it wants.
 * Every open socket is destroyed on close, so a stalling script never keeps a test alive.
 */
export async function startRawServer(onRequest: (request: RawRequest, socket: Socket) => void): Promise<TestServer> {
  const seen: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        const headEnd = buffered.indexOf('\r\n\r\n');
        if (headEnd === -1) return;
        const head = buffered.subarray(0, headEnd).toString('latin1');
        const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < headEnd + 4 + length) return;
        const body = buffered.subarray(headEnd + 4, headEnd + 4 + length);
        buffered = buffered.subarray(headEnd + 4 + length);
        const [method = '', path = ''] = head.split('\r\n', 1)[0]!.split(' ');
        const headers: IncomingMessage['headers'] = {};
        for (const line of head.split('\r\n').slice(1)) {
          const colon = line.indexOf(':');
          if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
        }
        seen.push({ method, url: path, headers, body: body.toString('utf8') });
        onRequest({ method, path, head, body }, socket);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    connections: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** An HTTP/1.1 response head and body as bytes, for raw-socket scripts. */
export function rawResponse(status: number, body: string, headers: Record<string, string> = {}): Buffer {
  const lines = [
    `HTTP/1.1 ${status} X`,
    'content-type: application/json',
    `content-length: ${Buffer.byteLength(body)}`,
  ];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n${body}`, 'utf8');
}
