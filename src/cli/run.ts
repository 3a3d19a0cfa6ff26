/**
 * `rpcload run [profile]` — a load test; writes one result file. This file declares the flags;
 * run-action.ts, loaded when the command runs, does it.
 */
import { Option, type Command } from 'commander';
import {
  caFile,
  collect,
  concurrencySpec,
  durationMs,
  httpClientName,
  httpUrl,
  oneOf,
  positiveInt,
  positiveNumber,
  rateSpec,
  replicaUrl,
  stagesSpec,
} from './parsers.ts';
import { addMetricsOptions } from './metrics-flags.ts';
import { addTransportOptions } from './transport-flags.ts';
import type { RunFlags } from './run-action.ts';

export function registerRunCommand(program: Command): void {
  const command = program
    .command('run')
    .description(
      'run a load test from a profile, or from flags alone (--target URL --client ID:SECRET --method NAME); without a target, against the embedded reference server',
    )
    .argument(
      '[profile]',
      'profile file (default: the demo profile, profiles/demo.json, unless --method/--client/--target describe the load)',
    )
    .option('--target <url>', 'target base URL (overrides the profile)', httpUrl)
    .addOption(
      new Option(
        '--rate <n>',
        "arrivals per second, or FROM:TO for a linear ramp: one phase instead of the profile's phases",
      )
        .argParser(rateSpec)
        .conflicts('concurrency'),
    )
    .option(
      '--concurrency <n>',
      "virtual users: one closed-model phase instead of the profile's phases",
      concurrencySpec,
    )
    .option('--duration <duration>', 'total duration, e.g. 30s or 2m', durationMs)
    .option(
      '--workload <name>',
      'the workload --rate, --concurrency, --duration, --stages, -n, --arrivals, --replay and --speed change (needed when the profile has several)',
    )
    .addOption(
      new Option(
        '--stages <list>',
        'open-model stages DURATION:RATE,… each ramping from the previous rate (0 first), e.g. 30s:50,2m:50,30s:0',
      )
        .argParser(stagesSpec)
        .conflicts(['rate', 'concurrency', 'duration']),
    )
    .option(
      '--arrivals <process>',
      'open model: arrivals evenly spaced (uniform) or a Poisson process (poisson) at the rate, for every phase',
      oneOf(['uniform', 'poisson'] as const),
    )
    .option(
      '-n, --requests <n>',
      'stop after N arrivals at a constant --rate (N requests when each is one unpaginated call); with --replay: the first N calls',
      positiveInt,
    )
    .option(
      '--clients <n>',
      'number of client IDs: a pattern makes N (more or fewer than the profile says), a list keeps its first N',
      positiveInt,
    )
    .option(
      '--method <name[:json][@weight]>',
      'without a profile: a method to call, with JSON args and a weight (repeatable)',
      collect,
    )
    .option('--paginated <name>', 'without a profile: a method whose next cursors are walked (repeatable)', collect)
    .option('--client <id:secret>', 'without a profile: client credentials (repeatable)', collect)
    .option(
      '--client-pattern <pattern:secret>',
      'without a profile: --clients N clients (default 10) of an ID pattern, e.g. app-{n}:SECRET',
    )
    .option(
      '--secret-env <var>',
      'environment variable holding the secret of --client IDs / --client-pattern given without :SECRET',
    )
    .option('--token-method <name>', 'without a profile: token request method (default auth.token)')
    .option(
      '--client-auth <method>',
      'without a profile: client authentication, post or basic',
      oneOf(['post', 'basic'] as const),
    )
    .option('--threshold <expr>', 'pass/fail expression like "p95 < 200ms" or "error_rate < 1%" (repeatable)', collect)
    .option(
      '--replica <url>',
      'spread the load over this replica of the API, reached directly (repeatable; tokens still come from the target)',
      (value: string, previous: string[] | undefined) => collect(replicaUrl(value), previous),
    )
    .option(
      '--replica-affinity <mode>',
      'with --replica: a replica per request in turn (request, default), or one replica per client (client)',
      oneOf(['request', 'client'] as const),
    )
    .option(
      '--replay <file>',
      "replay recorded traffic (JSONL {t, client, method, args} or a HAR capture) instead of the profile's scenarios",
    )
    .option(
      '--speed <factor>',
      'with --replay: recorded offsets ÷ this (2 = twice as fast, 0.5 = half; default 1)',
      positiveNumber,
    )
    .option('--loop', 'with --replay: play the window again when it ends, until --duration or -n')
    .option(
      '--from <when>',
      'with --replay: start of the window, a duration into the recording (e.g. 90s) or an ISO 8601 instant',
    )
    .option('--to <when>', 'with --replay: end of the window (exclusive), as --from')
    .option(
      '--map-clients',
      "with --replay: send callers without a client ID of their own by configured ones (a stable hash of the caller's name)",
    )
    .option(
      '--replay-host <host>',
      "with a HAR --replay: the API's host (default: the one most of its API calls go to)",
    )
    .option('--ca <file>', 'extra CA certificate (PEM) to trust for an https target', caFile)
    .option('--insecure', 'do not verify the https certificate')
    .option(
      '--http-client <name>',
      "the load's HTTP client: rpcload (rpcload's own: its HTTP/1.1 client, Node's http2 sessions on HTTP/2; " +
        'fast is its former name) or undici',
      httpClientName,
    )
    .option(
      '--timeout <duration>',
      "every request's overall deadline, token requests included (overrides http.requestTimeout, default 30s)",
      durationMs,
    );
  addTransportOptions(command)
    .option(
      '--workers <n>',
      'load worker threads, each with its own connections over a share of the clients and of the load (at most one per client)',
      positiveInt,
    )
    .option('--out <file>', 'result file (default results/<UTC timestamp>-<profile>.json); - writes it to stdout')
    .option(
      '--shard <I/N>',
      'carry shard I of N of one run: every N-th client and its share of the load (env RPCLOAD_SHARD, or JOB_COMPLETION_INDEX with RPCLOAD_SHARDS)',
    )
    .option(
      '--run-id <id>',
      'the id every shard of the run shares (env RPCLOAD_RUN_ID; default derived from the profile and --start-at)',
    )
    .option(
      '--start-at <time>',
      'fetch tokens and open connections, then start the clock at this instant: ISO 8601 with a zone, or Unix seconds (env RPCLOAD_START_AT)',
    )
    .option(
      '--out-samples <file>',
      'also write one JSON line per second (requests, outcomes, p50, p99) as the run goes, for tail -f and plotting',
    )
    .addOption(
      new Option('--ui <mode>', 'live view: tui on a terminal, plain lines in CI or when piped')
        .choices(['auto', 'tui', 'plain', 'none'])
        .default('auto'),
    )
    .option('--json', 'print the summary as JSON on stdout instead of a table')
    .option('--label <text>', 'a label stored in the result file, e.g. the release under test')
    .option(
      '--setup-values <file>',
      "skip the profile's setup (and teardown) and use the values `rpcload setup --out FILE` wrote: each shard of a run with setup",
    )
    .option('--junit <file>', 'also write JUnit XML: each threshold and check as a test case')
    .option(
      '--otlp-endpoint <url>',
      'push the live metrics over OTLP/HTTP to this collector base URL (/v1/metrics is appended; env OTEL_EXPORTER_OTLP_ENDPOINT)',
    )
    .option('--otlp-interval <duration>', 'how often to push (default 10s; once more at the end)', durationMs)
    .option(
      '--http-debug [n]',
      'print the first N request/response exchanges to stderr, credentials redacted (default 10; write --http-debug=N)',
      positiveInt,
    );
  addMetricsOptions(command).action(async (profilePath: string | undefined, flags: RunFlags) => {
    const { runAction } = await import('./run-action.ts');
    await runAction(profilePath, flags);
  });
}
