/**
 * `rpcload capacity [profile]` — search the highest rate (or concurrency) the target sustains within
 * its SLO. This file declares the flags; capacity-action.ts, loaded when the command runs, does it.
 */
import { Option, type Command } from 'commander';
import { RpcloadError } from '../errors.ts';
import { DEFAULT_CAPACITY_PROFILE } from '../profile/profile-defaults.ts';
import { durationMs, httpClientName, httpUrl, positiveInt, positiveNumber } from './parsers.ts';
import { addMetricsOptions } from './metrics-flags.ts';
import { addTransportOptions } from './transport-flags.ts';
import type { CapacityFlags } from './capacity-action.ts';

/** A duration flag that must be whole seconds (steps are measured per second), in ms. */
function wholeSecondsMs(flag: string) {
  return (value: string): number => {
    const ms = durationMs(value);
    if (ms % 1000 !== 0)
      throw new RpcloadError('bad_flag', `${flag}: expected whole seconds like 5s, found ${JSON.stringify(value)}`);
    return ms;
  };
}

export function registerCapacityCommand(program: Command): void {
  const command = program
    .command('capacity')
    .description(
      'find the highest rate (or concurrency) the target sustains within its SLO; a profile without a target searches the embedded reference server',
    )
    .argument('[profile]', `profile file (default: ${DEFAULT_CAPACITY_PROFILE})`)
    .option('--target <url>', 'target base URL (overrides the profile)', httpUrl)
    .option(
      '--workload <name>',
      'with several workloads: the one to search (its rate, users or speed); the others run as configured',
    )
    .option('--clients <n>', 'use only the first N client IDs', positiveInt)
    .option('--workers <n>', 'load worker threads', positiveInt)
    .option(
      '--http-client <name>',
      "the load's HTTP client: rpcload (rpcload's own: its HTTP/1.1 client, Node's http2 sessions on HTTP/2; " +
        'fast is its former name) or undici',
      httpClientName,
    )
    .option('--closed', 'closed model: search the concurrency (virtual users) and fit the Universal Scalability Law')
    .option('--start <n>', 'first step: rate per second (open) or virtual users (closed)', positiveNumber)
    .option('--factor <x>', 'growth factor until a step fails (default 2)', positiveNumber)
    .option('--tolerance <x>', 'bisect until the bracket is this narrow, relative (default 0.05)', positiveNumber)
    .option('--max <n>', 'never step above this rate (or concurrency)', positiveNumber)
    .option('--warm-up <duration>', 'warm-up of each step, whole seconds (default 2s)', wholeSecondsMs('--warm-up'))
    .option('--hold <duration>', 'measured hold of each step, whole seconds (default 5s)', wholeSecondsMs('--hold'))
    .option(
      '--confirm <duration>',
      'hold of the confirmation, whole seconds; 0 = none (default 15s)',
      wholeSecondsMs('--confirm'),
    )
    .option(
      '--slo <line>',
      'an SLO line, e.g. "p99 < 250ms" (repeatable; default: the profile\'s thresholds)',
      (v: string, prev?: string[]) => [...(prev ?? []), v],
    )
    .option(
      '--replay <file>',
      'search the speed of this recording (JSONL or HAR) instead of a rate: --start and --max are then speeds',
    )
    .option(
      '--from <when>',
      'with --replay: start of the window every step plays (a duration into the recording or an ISO 8601 instant)',
    )
    .option('--to <when>', 'with --replay: end of the window (exclusive), as --from')
    .option(
      '--map-clients',
      'with --replay: send callers without a client ID of their own by configured ones (a stable hash)',
    )
    .option(
      '--replay-host <host>',
      "with a HAR --replay: the API's host (default: the one most of its API calls go to)",
    )
    .option('--include-429', "search past the clients' quotas, counting 429s as answers")
    .option('--max-lag <duration>', 'schedule lag p99 above which a step is generator-bound (default 20ms)', durationMs)
    .option('--max-steps <n>', 'stop the search after this many steps (default 30)', positiveInt)
    .option('--label <text>', 'a label stored in the result file, e.g. the release under test')
    .option('--out <file>', 'result file (default results/<UTC timestamp>-<profile>-capacity.json)')
    .option('--summary-md <file>', 'append a markdown summary to this file (default: $GITHUB_STEP_SUMMARY when set)')
    .option('--junit <file>', 'also write JUnit XML: the SLO lines of the confirmation and the capacity as test cases')
    .addOption(
      new Option(
        '--ui <mode>',
        'live view: the dashboard of each step on a terminal, one line per step in CI or when piped, or none',
      )
        .choices(['auto', 'tui', 'plain', 'none'])
        .default('auto'),
    )
    .option('--json', 'print the capacity record as JSON on stdout instead of the summary');
  addMetricsOptions(addTransportOptions(command)).action(
    async (profilePath: string | undefined, flags: CapacityFlags) => {
      const { capacityAction } = await import('./capacity-action.ts');
      await capacityAction(profilePath, flags);
    },
  );
}
