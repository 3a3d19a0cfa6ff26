/** What `rpcload serve` does once its flags are parsed; loaded only when it runs (serve.ts declares the flags). */
import { readFileSync } from 'node:fs';
import { describeError, RpcloadError } from '../errors.ts';
import type { ClientCredential, ClientPublicKey, FaultName, ServerOptions } from '../server/options.ts';
import { serveSession, type ServeControls } from '../session/serve-session.ts';
import { abortOnFirstSignal } from './signals.ts';

export interface ServeFlags {
  port: number;
  host: string;
  limit: number;
  window: number;
  algorithm: ServerOptions['algorithm'];
  fault?: FaultName[];
  tls?: boolean;
  http2?: boolean;
  cert?: string;
  key?: string;
  clientCa?: string;
  clientKey?: string[];
  clients?: string[];
  clientPattern?: string;
  tokenMethod: string;
  tokenTtl: number;
  tokenResponse: 'envelope' | 'bare';
  payloadLimit: number;
  items: number;
  pageSize: number;
  cursorTtl: number;
  workP50: number;
  workP99: number;
  flakyRate: number;
  chaosRate: number;
  brokenEnvelopeRate: number;
  addedLatency: number;
  capacity?: number;
  capacityWorkers: number;
  maxQueue?: number;
  seed?: number;
  caOut?: string;
  replicas: number;
  limiterStore: ServerOptions['limiterStore'];
  storeFaultFile?: string;
  storeOutagePolicy: ServerOptions['storeOutagePolicy'];
}

/**
 * `ID:SECRET` / `PREFIX:SECRET`, split at the first colon (secrets may contain colons). Parsed in
 * the action rather than by commander, whose error message would echo the whole value, secrets
 * included.
 */
function splitCredential(text: string, flag: string, shape: string): { head: string; secret: string } {
  const colon = text.indexOf(':');
  if (colon === -1 || colon === text.length - 1 || (colon === 0 && flag === '--clients')) {
    throw new RpcloadError('bad_flag', `${flag}: expected ${shape} (the value is not shown: it may hold a secret)`);
  }
  return { head: text.slice(0, colon), secret: text.slice(colon + 1) };
}

function patternOf(value: string): { prefix: string; secret: string } {
  const { head, secret } = splitCredential(value, '--client-pattern', 'PREFIX:SECRET with a non-empty secret');
  return { prefix: head, secret };
}

function parseClients(values: readonly string[]): ClientCredential[] {
  return values
    .flatMap((value) => value.split(','))
    .map((entry) => {
      const { head, secret } = splitCredential(
        entry,
        '--clients',
        'ID:SECRET[,ID:SECRET…] with non-empty IDs and secrets',
      );
      return { id: head, secret };
    });
}

/** Read a PEM file named by a flag, as a one-line usage error when it cannot be read. */
function readPem(path: string, flag: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new RpcloadError('bad_flag', `${flag}: cannot read ${path}: ${describeError(err)}`);
  }
}

/** `--client-key ID:FILE`: the public key (PEM or JWK; a certificate or private key will do) a client's assertions are checked with. */
function parseClientKeys(values: readonly string[]): ClientPublicKey[] {
  return values.map((value) => {
    const colon = value.indexOf(':');
    if (colon <= 0 || colon === value.length - 1)
      throw new RpcloadError('bad_flag', `--client-key: expected ID:FILE, found ${JSON.stringify(value)}`);
    return { id: value.slice(0, colon), key: readPem(value.slice(colon + 1), '--client-key') };
  });
}

function serverOptionsFromFlags(flags: ServeFlags): ServerOptions {
  if ((flags.cert === undefined) !== (flags.key === undefined))
    throw new RpcloadError('bad_flag', '--cert and --key go together');
  const tls =
    flags.cert !== undefined
      ? { cert: readPem(flags.cert, '--cert'), key: readPem(flags.key!, '--key') }
      : flags.tls === true;
  if (flags.http2 === true && tls === false)
    throw new RpcloadError('bad_flag', '--http2: needs --tls (HTTP/2 is negotiated with TLS ALPN)');
  if (flags.clientCa !== undefined && tls === false)
    throw new RpcloadError('bad_flag', '--client-ca: needs --tls (client certificates are part of TLS)');
  return {
    host: flags.host,
    port: flags.port,
    limit: flags.limit,
    windowMs: flags.window,
    algorithm: flags.algorithm,
    ...(flags.clients ? { clients: parseClients(flags.clients) } : {}),
    ...(flags.clientPattern === undefined ? {} : { clientPattern: patternOf(flags.clientPattern) }),
    tokenMethod: flags.tokenMethod,
    tokenTtlS: flags.tokenTtl,
    tokenResponse: flags.tokenResponse,
    payloadLimitBytes: flags.payloadLimit,
    itemCount: flags.items,
    pageSize: flags.pageSize,
    cursorTtlMs: flags.cursorTtl,
    workLatency: { p50Ms: flags.workP50, p99Ms: flags.workP99 },
    flakyRate: flags.flakyRate,
    chaosRate: flags.chaosRate,
    brokenEnvelopeRate: flags.brokenEnvelopeRate,
    addedLatencyMs: flags.addedLatency,
    ...(flags.capacity === undefined
      ? {}
      : { capacity: { ratePerS: flags.capacity, workers: flags.capacityWorkers, maxQueueMs: flags.maxQueue ?? null } }),
    faults: flags.fault ?? [],
    tls,
    seed: flags.seed,
    replicas: flags.replicas,
    limiterStore: flags.limiterStore,
    storeFaultFile: flags.storeFaultFile,
    storeOutagePolicy: flags.storeOutagePolicy,
    ...(flags.http2 === true ? { http2: true } : {}),
    ...(flags.clientCa === undefined ? {} : { clientCa: readPem(flags.clientCa, '--client-ca') }),
    ...(flags.clientKey === undefined ? {} : { clientKeys: parseClientKeys(flags.clientKey) }),
  };
}

/** `rpcload serve`: the reference server, until SIGINT, SIGTERM or SIGHUP. */
export async function serveAction(flags: ServeFlags): Promise<void> {
  // Listen for signals before announcing the URL: whoever parses that line may stop us at once.
  const signal = abortOnFirstSignal((name) => process.stderr.write(`rpcload serve: ${name}, closing\n`));
  let stopControl = (): void => {};
  await serveSession({
    server: serverOptionsFromFlags(flags),
    caOut: flags.caOut,
    signal,
    onListening: ({ url, replicaUrls, notes, controls }) => {
      stopControl = controlBySignals(controls);
      process.stdout.write(`rpcload serve: listening on ${url}\n`);
      replicaUrls.forEach((replica, i) =>
        process.stdout.write(`rpcload serve: replica ${i + 1} listening on ${replica}\n`),
      );
      process.stderr.write(`${[pidNote(), ...notes].join('\n')}\n`);
    },
  });
  stopControl();
}

/**
 * SIGUSR1 switches the limiter's store down (again: up); SIGUSR2 restarts the replicas. Not SIGHUP,
 * the daemon convention: a closed terminal sends it, and that must stop the server, not restart it.
 * Returns a function that stops listening for them.
 */
function controlBySignals(controls: ServeControls): () => void {
  const onOutage = (): void => {
    process.stderr.write(
      `rpcload serve: SIGUSR1, the limiter's store is now ${controls.toggleStoreDown() ? 'down' : 'up'}\n`,
    );
  };
  const onRestart = (): void => {
    controls.restart().then(
      () => process.stderr.write('rpcload serve: SIGUSR2, restarted\n'),
      (err: unknown) => process.stderr.write(`rpcload serve: SIGUSR2, restart failed: ${describeError(err)}\n`),
    );
  };
  process.on('SIGUSR1', onOutage);
  process.on('SIGUSR2', onRestart);
  return () => {
    process.off('SIGUSR1', onOutage);
    process.off('SIGUSR2', onRestart);
  };
}

/**
 * The server's own process id: started through `npx` or `npm exec`, `$!` in a shell is npm's, and a
 * signal sent to npm ends npm and leaves the server running, unrestarted.
 */
function pidNote(): string {
  const pid = process.pid;
  return `rpcload serve: pid ${pid}: send signals here, not to npx or npm (SIGTERM stops, SIGUSR1 store outage, SIGUSR2 restart)`;
}
