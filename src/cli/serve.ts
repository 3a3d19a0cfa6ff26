/** `rpcload serve`: the reference server, its rate limit, clients, TLS and faults set by flags. */
import { readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { describeError, RpcloadError } from '../errors.ts';
import { formatDurationMs } from '../util/duration.ts';
import { DEMO_CLIENT_PATTERN, DEMO_CLIENT_PREFIXES } from '../server/resolved-config.ts';
import {
  FAULTS,
  LIMITER_ALGORITHMS,
  type ClientCredential,
  type ClientPublicKey,
  type FaultName,
  type ServerHandle,
  type ServerOptions,
} from '../server/options.ts';
import { DEFAULT_CAPACITY_WORKERS } from '../server/service-capacity.ts';
import { startServer } from '../server/start-server.ts';
import { collect, durationMs, fraction, nonNegativeInt, oneOf, positiveInt, positiveNumber } from './parsers.ts';

interface ServeFlags {
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
      const { head, secret } = splitCredential(entry, '--clients', 'ID:SECRET[,ID:SECRET…] with non-empty IDs and secrets');
      return { id: head, secret };
    });
}

const faultName = oneOf(FAULTS.map((f) => f.name));

function pageSize(value: string): number {
  const n = positiveInt(value);
  if (n > 100) throw new InvalidArgumentError(`expected an integer 1–100, found ${JSON.stringify(value)}`);
  return n;
}

function port(value: string): number {
  const n = nonNegativeInt(value);
  if (n > 65_535) throw new InvalidArgumentError(`expected a port 0–65535, found ${JSON.stringify(value)}`);
  return n;
}

/** `--capacity`: `300` or `300/s`. */
function perSecond(value: string): number {
  return positiveNumber(value.replace(/\/s$/, ''));
}

/** `--token-ttl`: whole seconds, because expires_in is. */
function wholeSeconds(value: string): number {
  const ms = durationMs(value);
  if (ms < 1000 || ms % 1000 !== 0)
    throw new InvalidArgumentError(`expected whole seconds (≥ 1s) like 30s or 1h, found ${JSON.stringify(value)}`);
  return ms / 1000;
}

/** The fault catalogue as help text, generated so that it can never drift from the code. */
function faultHelp(): string {
  const width = Math.max(...FAULTS.map((f) => f.name.length));
  const lines = (kind: string): string[] => FAULTS.filter((f) => f.kind === kind).map((f) => `  ${f.name.padEnd(width)}  ${f.description}`);
  return [
    '',
    'Faults (--fault NAME, repeatable), each breaking exactly one rule of the conventions:',
    ...lines('convention'),
    '',
    'Chaos faults, each hitting a share (--chaos-rate) of method responses:',
    ...lines('chaos'),
    '',
    `Clients: without --clients, any ID starting with ${DEMO_CLIENT_PREFIXES.map((p) => `"${p}"`).join(' or ')} (the smoke profile's) is`,
    `accepted with the secret "${DEMO_CLIENT_PATTERN.secret}" (demo only: anyone who reads this can get a token).`,
    'Methods: auth.token (form-encoded token request), ping, echo, items.list (paginated, array',
    'field "items"), work (log-normal latency; arg delayMs forces one), flaky.',
  ].join('\n');
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
  if ((flags.cert === undefined) !== (flags.key === undefined)) throw new RpcloadError('bad_flag', '--cert and --key go together');
  const tls = flags.cert !== undefined ? { cert: readPem(flags.cert, '--cert'), key: readPem(flags.key!, '--key') } : flags.tls === true;
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
    ...(flags.http2 === true ? { http2: true } : {}),
    ...(flags.clientCa === undefined ? {} : { clientCa: readPem(flags.clientCa, '--client-ca') }),
    ...(flags.clientKey === undefined ? {} : { clientKeys: parseClientKeys(flags.clientKey) }),
    ...(flags.seed === undefined ? {} : { seed: flags.seed }),
  };
}

/** A few stderr lines saying what is being served (never a secret). */
function summary(options: ServerOptions): string {
  const who: string[] = [];
  if (options.clients) who.push(`${options.clients.length} registered`);
  const pattern = options.clientPattern ?? (options.clients ? undefined : DEMO_CLIENT_PATTERN);
  if (pattern === DEMO_CLIENT_PATTERN)
    who.push(`any ${DEMO_CLIENT_PREFIXES.map((p) => `"${p}…"`).join(' or ')} ID with the demo secret (see --help)`);
  else if (pattern) who.push(`any "${pattern.prefix}…" ID`);
  const transport = [
    ...(options.http2 === true ? ['HTTP/2 (and HTTP/1.1 to clients without h2)'] : []),
    ...(options.clientCa === undefined ? [] : ['client certificates required (mTLS)']),
    ...(options.clientKeys === undefined ? [] : [`private_key_jwt for ${options.clientKeys.map((k) => k.id).join(', ')}`]),
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
    `rpcload serve: faults: ${options.faults?.length ? options.faults.join(', ') : 'none'}; Ctrl-C to stop`,
  ].join('\n');
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
function tryCommand(options: ServerOptions, url: string, caFile: string | null): string {
  const registered = options.clients?.[0];
  const client =
    options.clientPattern !== undefined
      ? `--client ${options.clientPattern.prefix}1 --secret-env CLIENT_SECRET`
      : registered !== undefined
        ? `--client ${registered.id} --secret-env CLIENT_SECRET`
        : `--client ${DEMO_CLIENT_PATTERN.prefix}1:${DEMO_CLIENT_PATTERN.secret}`;
  const method = options.tokenMethod === undefined || options.tokenMethod === 'auth.token' ? '' : ` --token-method ${options.tokenMethod}`;
  const trust = caFile === null ? (url.startsWith('https:') ? ' --insecure' : '') : ` --ca ${caFile}`;
  const transport = `${options.http2 === true ? ' --http2' : ''}${options.clientCa === undefined ? '' : ' --cert CLIENT.pem --key CLIENT.key'}`;
  return `npx rpcload run --target ${url} ${client}${method}${trust}${transport} --method ping --rate 5 --duration 10s`;
}

/** Resolves on the first SIGINT or SIGTERM. */
function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

/** `rpcload serve` — the reference server, until SIGINT/SIGTERM. */
export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('run the reference server: every API convention, pluggable rate limiters, injectable faults')
    .addOption(new Option('--port <n>', 'port to listen on (0 = any free port)').argParser(port).default(0))
    .addOption(new Option('--host <host>', 'interface to listen on').default('127.0.0.1'))
    .addOption(new Option('--limit <n>', 'requests admitted per window per client').argParser(positiveInt).default(100))
    .addOption(new Option('--window <duration>', 'rate-limit window').argParser(durationMs).default(10_000, '10s'))
    .addOption(new Option('--algorithm <name>', 'rate limiter').choices(LIMITER_ALGORITHMS).default('fixed'))
    .addOption(
      new Option('--fault <name>', 'inject a fault (repeatable; list below)').argParser(
        (v: string, prev: FaultName[] | undefined) => collect(faultName(v), prev) as FaultName[],
      ),
    )
    .addOption(new Option('--tls', 'serve HTTPS (TLS ≥ 1.2) with a self-signed certificate made at start'))
    .addOption(new Option('--http2', 'with --tls: serve HTTP/2 (node:http2), and HTTP/1.1 to clients that do not offer h2'))
    .addOption(
      new Option('--client-ca <file>', 'with --tls: require a client certificate issued by this CA (PEM) on every connection (mTLS)'),
    )
    .addOption(
      new Option(
        '--client-key <id:file>',
        'accept private_key_jwt assertions of client ID, checked with this public key (PEM or JWK; a certificate will do) (repeatable)',
      ).argParser(collect),
    )
    .addOption(new Option('--cert <file>', 'PEM certificate to serve instead (implies --tls; with --key)'))
    .addOption(new Option('--key <file>', 'PEM private key of --cert'))
    .addOption(
      new Option(
        '--ca-out <file>',
        'with --tls: where to write the generated certificate, for run/verify --ca (default: a file in the temp directory)',
      ),
    )
    .addOption(new Option('--clients <list>', 'registered clients ID:SECRET[,ID:SECRET…] (repeatable)').argParser(collect))
    .addOption(new Option('--client-pattern <prefix:secret>', 'accept any client ID with this prefix and this one secret'))
    .addOption(new Option('--token-method <name>', 'method name of the token request').default('auth.token'))
    .addOption(new Option('--token-ttl <duration>', 'access token lifetime (expires_in)').argParser(wholeSeconds).default(3600, '1h'))
    .addOption(
      new Option('--token-response <shape>', 'token response: inside the API envelope, or bare RFC 6749 JSON')
        .choices(['envelope', 'bare'])
        .default('envelope'),
    )
    .addOption(new Option('--payload-limit <bytes>', 'largest request body accepted').argParser(nonNegativeInt).default(100_000))
    .addOption(new Option('--items <n>', 'size of the items.list data set').argParser(nonNegativeInt).default(1000))
    .addOption(new Option('--page-size <n>', 'default items.list page size (1–100)').argParser(pageSize).default(100))
    .addOption(new Option('--cursor-ttl <duration>', 'pagination cursor lifetime').argParser(durationMs).default(60_000, '60s'))
    .addOption(new Option('--work-p50 <duration>', 'median latency of work').argParser(durationMs).default(20, '20ms'))
    .addOption(new Option('--work-p99 <duration>', '99th percentile latency of work').argParser(durationMs).default(200, '200ms'))
    .addOption(new Option('--flaky-rate <0..1>', 'share of flaky calls failing with unexpected_error').argParser(fraction).default(0.1))
    .addOption(new Option('--chaos-rate <0..1>', 'share of method responses hit by each chaos fault').argParser(fraction).default(0.1))
    .addOption(
      new Option('--broken-envelope-rate <0..1>', 'share of successes broken by the broken-envelope fault')
        .argParser(fraction)
        .default(0.2),
    )
    .addOption(new Option('--added-latency <duration>', 'extra latency before every API response').argParser(durationMs).default(0, '0ms'))
    .addOption(
      new Option(
        '--capacity <rate>',
        'service capacity: API calls per second the server sustains (FIFO queue; latency climbs past it)',
      ).argParser(perSecond),
    )
    .addOption(
      new Option('--capacity-workers <n>', 'parallel workers of the capacity model (service time = workers / rate)')
        .argParser(positiveInt)
        .default(DEFAULT_CAPACITY_WORKERS),
    )
    .addOption(
      new Option('--max-queue <duration>', 'with --capacity: shed calls (503 server_busy) that would queue longer').argParser(durationMs),
    )
    .addOption(
      new Option('--seed <n>', 'seed of the random parts (latency, flaky, faults) for reproducible runs').argParser(nonNegativeInt),
    )
    .addHelpText('after', faultHelp())
    .action(async (flags: ServeFlags) => {
      const options = serverOptionsFromFlags(flags);
      // Listen for signals before announcing the URL: whoever parses that line may stop us at once.
      const stopped = untilSignal();
      const server = await startServer(options);
      const caFile = server.certPem === undefined || flags.cert !== undefined ? null : await writeServedCertificate(server, flags.caOut);
      process.stdout.write(`rpcload serve: listening on ${server.url}\n`);
      process.stderr.write(`${summary(options)}\n`);
      if (caFile !== null) process.stderr.write(`rpcload serve: certificate written to ${caFile} (trust it with --ca ${caFile})\n`);
      process.stderr.write(`rpcload serve: try  ${tryCommand(options, server.url, caFile)}\n`);
      const signal = await stopped;
      process.stderr.write(`rpcload serve: ${signal}, closing\n`);
      await server.close();
      if (caFile !== null && flags.caOut === undefined) await rm(caFile, { force: true });
    });
}
