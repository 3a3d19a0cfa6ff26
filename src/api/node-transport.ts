/**
 * HTTP/1.1 calls over Node's own http and https clients, for the few calls a load makes besides
 * its load: the token requests. A run's load goes over rpcload's own client, so undici's parser
 * would serve one exchange, and its first exchange costs ~0.3 CPU-s (mostly V8 compiling its
 * WebAssembly parser in the background: a 1-second run took 0.865 CPU-s with it, 0.541 without),
 * where Node's built-in parser costs nothing to start. Same trust settings and client certificate as every other connection of rpcload
 * (`tlsOptions`), keep-alive, a bounded number of connections per origin; headers and body as
 * undici's `request` gives them (a repeated header as a list), so `callApi` reads either alike.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import type { ApiTransportRequest, ApiTransportResponse, PlainTransport } from './http-call.ts';
import { tlsOptions, type DispatcherOptions } from './dispatcher.ts';

/** An HTTP/1.1 transport on Node's http/https clients; `destroy()` closes its connections. */
export class NodeHttpTransport implements PlainTransport {
  private readonly http: HttpAgent;
  /** Made at the first https call: node:https (and node:tls) load then, not in every plain-http run. */
  private https: HttpsAgent | undefined;
  private readonly httpsOptions: ConstructorParameters<typeof HttpsAgent>[0];

  /**
   * @param idleTimeoutMs a kept-alive connection idle this long is closed (rpcload's `http.idleTimeout`:
   *   below the servers' own, so a token refresh does not meet a connection the server is closing)
   */
  constructor(
    options: Pick<DispatcherOptions, 'connections' | 'ca' | 'insecure' | 'identity'>,
    idleTimeoutMs?: number,
  ) {
    const limits = { keepAlive: true, maxSockets: options.connections ?? Infinity, timeout: idleTimeoutMs };
    this.http = new HttpAgent(limits);
    this.httpsOptions = { ...limits, ...tlsOptions(options) };
  }

  request(options: ApiTransportRequest): Promise<ApiTransportResponse> {
    const url = new URL(options.path, options.origin);
    const secure = url.protocol === 'https:';
    const https = secure ? process.getBuiltinModule('node:https') : undefined;
    if (https !== undefined) this.https ??= new https.Agent(this.httpsOptions);
    return new Promise((resolve, reject) => {
      const req = (https?.request ?? httpRequest)(url, {
        method: options.method,
        headers: headerObject(options.headers),
        agent: https === undefined ? this.http : this.https,
        signal: options.signal,
      });
      req.once('error', reject);
      req.once('response', (response: IncomingMessage) => {
        // Once answered, a failure shows in the body the caller reads; the request's own error
        // event (a reset mid-body is told to both) must not go unheard.
        req.off('error', reject);
        req.on('error', () => undefined);
        resolve({ statusCode: response.statusCode ?? 0, headers: headersOf(response), body: response });
      });
      req.end(options.body);
    });
  }

  destroy(): Promise<void> {
    this.http.destroy();
    this.https?.destroy();
    return Promise.resolve();
  }
}

/**
 * Headers as an object: given Node a flat list, it would send neither Host nor Content-Length (it
 * takes the list as the whole header block). A name the list repeats keeps each of its values.
 */
function headerObject(headers: ApiTransportRequest['headers']): Record<string, string | string[]> {
  if (!isHeaderList(headers)) return { ...headers };
  const object: Record<string, string | string[]> = {};
  for (let i = 0; i + 1 < headers.length; i += 2) {
    const name = headers[i]!.toLowerCase();
    const earlier = object[name];
    const value = headers[i + 1]!;
    object[name] = earlier === undefined ? value : [...(Array.isArray(earlier) ? earlier : [earlier]), value];
  }
  return object;
}

const isHeaderList = (headers: ApiTransportRequest['headers']): headers is readonly string[] => Array.isArray(headers);

/** The response's headers as undici gives them: lower-case names, a repeated header as a list. */
function headersOf(response: IncomingMessage): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, values] of Object.entries(response.headersDistinct)) {
    if (values !== undefined) headers[name] = values.length === 1 ? values[0]! : values;
  }
  return headers;
}
