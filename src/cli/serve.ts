/**
 * `rpcload serve`: the reference server, its rate limit, clients, TLS and faults set by flags. This
 * file declares the flags; serve-action.ts, loaded when the command runs, does it.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { METHOD_HELP } from '../server/methods/method-help.ts';
import {
  DEFAULT_CAPACITY_WORKERS,
  DEFAULT_MAX_ORDERS,
  DEMO_CLIENT_PATTERN,
  DEMO_CLIENT_PREFIXES,
} from '../server/defaults.ts';
import {
  FAULTS,
  LIMITER_ALGORITHMS,
  LIMITER_STORES,
  STORE_OUTAGE_POLICIES,
  type FaultName,
} from '../server/options.ts';
import { collect, durationMs, fraction, nonNegativeInt, oneOf, positiveInt, positiveNumber } from './parsers.ts';
import type { ServeFlags } from './serve-action.ts';
import { groupThousands } from '../util/number-format.ts';

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

/** `--token-ttl` in seconds (not ms): whole seconds, because expires_in is. */
function wholeSecondsS(value: string): number {
  const ms = durationMs(value);
  if (ms < 1000 || ms % 1000 !== 0)
    throw new InvalidArgumentError(`expected whole seconds (≥ 1s) like 30s or 1h, found ${JSON.stringify(value)}`);
  return ms / 1000;
}

/** `"a", "b" or "c"`. */
function listOr(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)!}`;
}

/** The faults, the demo clients and the methods as help text, generated so that they can never drift from the code. */
function faultHelp(): string {
  const width = Math.max(...FAULTS.map((f) => f.name.length));
  const methodWidth = Math.max(...METHOD_HELP.map((m) => m.name.length));
  const maxOrders = groupThousands(DEFAULT_MAX_ORDERS);
  const lines = (kind: string): string[] =>
    FAULTS.filter((f) => f.kind === kind).map((f) => `  ${f.name.padEnd(width)}  ${f.description}`);
  return [
    '',
    'Faults (--fault NAME, repeatable), each breaking exactly one rule of the conventions:',
    ...lines('convention'),
    '',
    'Chaos faults, each hitting a share (--chaos-rate) of method responses:',
    ...lines('chaos'),
    '',
    `Clients: without --clients, the secret "${DEMO_CLIENT_PATTERN.secret}" opens any ID starting with`,
    `${listOr(DEMO_CLIENT_PREFIXES.map((p) => `"${p}"`))} (the bundled examples' patterns;`,
    'demo only: anyone who reads this can get a token).',
    '',
    'Methods (POST /api/<method>, a JSON object body → {"status":"success","data":…}); auth.token is the',
    "form-encoded token request. Every method counts against the caller's rate limit; an argument of the",
    'wrong type is 400 invalid_arguments. An order belongs to the client that created it; the replicas',
    `share the orders, at most ${maxOrders} of them (past that the oldest is forgotten):`,
    ...METHOD_HELP.map((m) => `  ${m.name.padEnd(methodWidth)}  ${m.summary}`),
  ].join('\n');
}

/** `rpcload serve` — the reference server, until SIGINT, SIGTERM or SIGHUP. */
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
    .addOption(
      new Option('--http2', 'with --tls: serve HTTP/2 (node:http2), and HTTP/1.1 to clients that do not offer h2'),
    )
    .addOption(
      new Option(
        '--client-ca <file>',
        'with --tls: require a client certificate issued by this CA (PEM) on every connection (mTLS)',
      ),
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
    .addOption(
      new Option('--clients <list>', 'registered clients ID:SECRET[,ID:SECRET…] (repeatable)').argParser(collect),
    )
    .addOption(
      new Option('--client-pattern <prefix:secret>', 'accept any client ID with this prefix and this one secret'),
    )
    .addOption(new Option('--token-method <name>', 'method name of the token request').default('auth.token'))
    .addOption(
      new Option('--token-ttl <duration>', 'access token lifetime (expires_in)')
        .argParser(wholeSecondsS)
        .default(3600, '1h'),
    )
    .addOption(
      new Option('--token-response <shape>', 'token response: inside the API envelope, or bare RFC 6749 JSON')
        .choices(['envelope', 'bare'])
        .default('envelope'),
    )
    .addOption(
      new Option('--payload-limit <bytes>', 'largest request body accepted').argParser(nonNegativeInt).default(100_000),
    )
    .addOption(new Option('--items <n>', 'size of the items.list data set').argParser(nonNegativeInt).default(1000))
    .addOption(new Option('--page-size <n>', 'default items.list page size (1–100)').argParser(pageSize).default(100))
    .addOption(
      new Option('--cursor-ttl <duration>', 'pagination cursor lifetime').argParser(durationMs).default(60_000, '60s'),
    )
    .addOption(new Option('--work-p50 <duration>', 'median latency of work').argParser(durationMs).default(20, '20ms'))
    .addOption(
      new Option('--work-p99 <duration>', '99th percentile latency of work')
        .argParser(durationMs)
        .default(200, '200ms'),
    )
    .addOption(
      new Option('--flaky-rate <0..1>', 'share of flaky calls failing with unexpected_error')
        .argParser(fraction)
        .default(0.1),
    )
    .addOption(
      new Option('--chaos-rate <0..1>', 'share of method responses hit by each chaos fault')
        .argParser(fraction)
        .default(0.1),
    )
    .addOption(
      new Option('--broken-envelope-rate <0..1>', 'share of successes broken by the broken-envelope fault')
        .argParser(fraction)
        .default(0.2),
    )
    .addOption(
      new Option('--added-latency <duration>', 'extra latency before every API response')
        .argParser(durationMs)
        .default(0, '0ms'),
    )
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
      new Option(
        '--max-queue <duration>',
        'with --capacity: shed calls (503 server_busy) that would queue longer',
      ).argParser(durationMs),
    )
    .addOption(
      new Option('--seed <n>', 'seed of the random parts (latency, flaky, faults) for reproducible runs').argParser(
        nonNegativeInt,
      ),
    )
    .addOption(
      new Option('--replicas <n>', 'replicas of the API on their own ports behind a round-robin front')
        .argParser(positiveInt)
        .default(1),
    )
    .addOption(
      new Option(
        '--limiter-store <store>',
        'where replicas keep their rate-limit counts: one shared store, or each its own memory',
      )
        .choices(LIMITER_STORES)
        .default('shared'),
    )
    .addOption(
      new Option(
        '--store-fault-file <path>',
        "while this file exists, the limiter's store is down (SIGUSR1 switches it too)",
      ),
    )
    .addOption(
      new Option('--store-outage-policy <policy>', 'what the limiter does while its store is down')
        .choices(STORE_OUTAGE_POLICIES)
        .default('closed-503'),
    )
    .addHelpText('after', () => faultHelp())
    .action(async (flags: ServeFlags) => {
      const { serveAction } = await import('./serve-action.ts');
      await serveAction(flags);
    });
}
