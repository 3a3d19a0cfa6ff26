/**
 * `rpcload serve` as a session: start the reference server, write its generated certificate where
 * `run --ca` / `verify --ca` can read it, say where it listens and what it serves, serve until
 * told to stop, then close it and remove a certificate it wrote to the temp directory.
 */
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeError, RpcloadError } from '../errors.ts';
import { DEMO_CLIENT_PATTERN, DEMO_CLIENT_PREFIXES } from '../server/defaults.ts';
import type { ServerHandle, ServerOptions } from '../server/options.ts';
import { startServer } from '../server/start-server.ts';
import { formatDurationMs } from '../util/duration.ts';

export interface ServeSessionOptions {
  readonly server: ServerOptions;
  /** `--ca-out`: where a generated certificate goes (default: the temp directory, removed when serving ends). */
  readonly caOut?: string;
  /** Aborted when serving should end (the CLI aborts it on SIGINT/SIGTERM). */
  readonly signal: AbortSignal;
  /** Told once, when the server listens. */
  readonly onListening: (listening: Listening) => void;
}

/** What a running server can be told from outside (the CLI maps SIGUSR1 and SIGUSR2 onto these). */
export type ServeControls = Pick<ServerHandle, 'restart' | 'toggleStoreDown'>;

export interface Listening {
  /** The URL clients use (the round-robin front when there are replicas). */
  readonly url: string;
  /** Each replica's own URL (empty without --replicas). */
  readonly replicaUrls: readonly string[];
  /** A few lines on what is served (never a secret). */
  readonly notes: readonly string[];
  readonly controls: ServeControls;
}

/** A few lines saying what is being served (never a secret). */
function servedSummary(options: ServerOptions): string[] {
  const who: string[] = [];
  if (options.clients) who.push(`${options.clients.length} registered`);
  const pattern = options.clientPattern ?? (options.clients ? undefined : DEMO_CLIENT_PATTERN);
  if (pattern === DEMO_CLIENT_PATTERN)
    who.push(`any ${DEMO_CLIENT_PREFIXES.map((p) => `"${p}…"`).join(' or ')} ID with the demo secret (see --help)`);
  else if (pattern) who.push(`any "${pattern.prefix}…" ID`);
  const transport = [
    ...(options.http2 === true ? ['HTTP/2 (and HTTP/1.1 to clients without h2)'] : []),
    ...(options.clientCa === undefined ? [] : ['client certificates required (mTLS)']),
    ...(options.clientKeys === undefined
      ? []
      : [`private_key_jwt for ${options.clientKeys.map((k) => k.id).join(', ')}`]),
  ];
  return [
    ...(transport.length === 0 ? [] : [`rpcload serve: ${transport.join('; ')}`]),
    `rpcload serve: rate limit ${options.limit} per ${formatDurationMs(options.windowMs!)} per client (${options.algorithm}), payload limit ${options.payloadLimitBytes} bytes`,
    `rpcload serve: clients: ${who.join(' + ')}; token method ${options.tokenMethod}, tokens live ${options.tokenTtlS}s`,
    ...(options.capacity === undefined
      ? []
      : [
          `rpcload serve: service capacity ${options.capacity.ratePerS}/s (${options.capacity.workers} workers, FIFO queue${options.capacity.maxQueueMs == null ? '' : `, shedding past ${formatDurationMs(options.capacity.maxQueueMs)}`})`,
        ]),
    ...deploymentLines(options),
    `rpcload serve: faults: ${options.faults?.length ? options.faults.join(', ') : 'none'}; Ctrl-C to stop`,
  ];
}

/** What the replicas, their store and its outage switch are. */
function deploymentLines(options: ServerOptions): string[] {
  const replicas = options.replicas ?? 1;
  const store =
    options.limiterStore === 'memory'
      ? 'each counts in its own memory (a client gets the limit once per replica)'
      : 'they share one store (one quota per client)';
  const outage = `store outage (policy ${options.storeOutagePolicy}): ${options.storeFaultFile === undefined ? '' : `while ${options.storeFaultFile} exists, or `}after SIGUSR1 (again to end it)`;
  return [
    ...(replicas > 1 ? [`rpcload serve: ${replicas} replicas behind a round-robin front; ${store}`] : []),
    `rpcload serve: ${outage}; SIGUSR2 restarts the ${replicas > 1 ? 'replicas' : 'server'} (in-memory counts are lost, a shared store is kept)`,
  ];
}

/** The self-signed certificate, written where `run --ca` / `verify --ca` can read it. */
async function writeServedCertificate(server: ServerHandle, caOut: string | undefined): Promise<string> {
  const path = caOut ?? join(tmpdir(), `rpcload-serve-${server.port}-ca.pem`);
  await writeFile(path, server.certPem!, 'utf8').catch((err: unknown) => {
    throw new RpcloadError('write_failed', `--ca-out: cannot write ${path}: ${describeError(err)}`);
  });
  return path;
}

/**
 * A command to paste into another terminal: a one-line load test of this server. The demo secret
 * is public (it is in --help); a registered or custom secret is never printed.
 */
function tryCommand(
  options: ServerOptions,
  url: string,
  replicaUrls: readonly string[],
  caFile: string | null,
): string {
  const registered = options.clients?.[0];
  const client =
    options.clientPattern !== undefined
      ? `--client ${options.clientPattern.prefix}1 --secret-env CLIENT_SECRET`
      : registered !== undefined
        ? `--client ${registered.id} --secret-env CLIENT_SECRET`
        : `--client ${DEMO_CLIENT_PATTERN.prefix}1:${DEMO_CLIENT_PATTERN.secret}`;
  const method =
    options.tokenMethod === undefined || options.tokenMethod === 'auth.token'
      ? ''
      : ` --token-method ${options.tokenMethod}`;
  const trust = caFile === null ? (url.startsWith('https:') ? ' --insecure' : '') : ` --ca ${caFile}`;
  const replicas = replicaUrls.map((replica) => ` --replica ${replica}`).join('');
  const transport = `${options.http2 === true ? ' --http2' : ''}${options.clientCa === undefined ? '' : ' --cert CLIENT.pem --key CLIENT.key'}`;
  return `npx rpcload run --target ${url}${replicas} ${client}${method}${trust}${transport} --method ping --rate 5 --duration 10s`;
}

const aborted = (signal: AbortSignal): Promise<void> =>
  signal.aborted
    ? Promise.resolve()
    : new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));

/** Serve until `signal` is aborted, then close the server. */
export async function serveSession(options: ServeSessionOptions): Promise<void> {
  const server = await startServer(options.server);
  // A certificate of the user's own (--cert) is already a file they have; a generated one is written out.
  const generated = server.certPem !== undefined && typeof options.server.tls !== 'object';
  const caFile = generated ? await writeServedCertificate(server, options.caOut) : null;
  options.onListening({
    url: server.url,
    replicaUrls: server.replicaUrls,
    notes: [
      ...servedSummary(options.server),
      ...(caFile === null ? [] : [`rpcload serve: certificate written to ${caFile} (trust it with --ca ${caFile})`]),
      `rpcload serve: try  ${tryCommand(options.server, server.url, server.replicaUrls, caFile)}`,
    ],
    controls: server,
  });
  await aborted(options.signal);
  await server.close();
  if (caFile !== null && options.caOut === undefined) await rm(caFile, { force: true });
}
