/** `rpcload run [profile]` — a load test; writes one result file. */
import { Option, type Command } from 'commander';
import type { PlanOverrides } from '../profile/build-plan.ts';
import { defaultProfilePath, loadPlan } from '../profile/load-profile.ts';
import { renderSummaryTable } from '../results/summary-table.ts';
import { resolveShardOptions, type ShardFlags } from '../session/distributed/shard-spec.ts';
import { STDOUT_PATH } from '../session/result/result-file.ts';
import { runSession } from '../session/run-session.ts';
import { createRunView } from '../ui/create-view.ts';
import { resolveUiMode, type UiMode } from '../ui/ui-mode.ts';
import { redactSecrets } from '../util/redact.ts';
import { colourEnabled } from '../util/terminal-style.ts';
import { setExitCode } from './exit.ts';
import { durationMs, httpUrl, positiveInt, positiveNumber } from './parsers.ts';
import { withInterrupt } from './signals.ts';

interface RunFlags extends ShardFlags {
  target?: string;
  rate?: number;
  concurrency?: number;
  duration?: number;
  clients?: number;
  timeout?: number;
  workers?: number;
  out?: string;
  ui: UiMode;
  json?: boolean;
}

function overridesOf(flags: RunFlags): PlanOverrides {
  return {
    ...(flags.target === undefined ? {} : { target: flags.target }),
    ...(flags.rate === undefined ? {} : { rate: flags.rate }),
    ...(flags.concurrency === undefined ? {} : { concurrency: flags.concurrency }),
    ...(flags.duration === undefined ? {} : { durationMs: flags.duration }),
    ...(flags.clients === undefined ? {} : { clients: flags.clients }),
    ...(flags.timeout === undefined ? {} : { requestTimeoutMs: flags.timeout }),
  };
}

export function registerRunCommand(program: Command): void {
  program
    .command('run')
    .description('run a load test; a profile without a target runs against the embedded reference server')
    .argument('[profile]', 'profile file (default: the demo profile, profiles/demo.json)')
    .option('--target <url>', 'target base URL (overrides the profile)', httpUrl)
    .addOption(
      new Option('--rate <n>', "arrivals per second: one constant-rate phase instead of the profile's phases")
        .argParser(positiveNumber)
        .conflicts('concurrency'),
    )
    .option('--concurrency <n>', "virtual users: one closed-model phase instead of the profile's phases", positiveInt)
    .option('--duration <duration>', 'total duration, e.g. 30s or 2m', durationMs)
    .option('--clients <n>', 'use only the first N client IDs', positiveInt)
    .option(
      '--timeout <duration>',
      "every request's overall deadline, token requests included (overrides http.requestTimeout, default 30s)",
      durationMs,
    )
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
    .option('--run-id <id>', 'the id every shard of the run shares (env RPCLOAD_RUN_ID; default derived from the profile and --start-at)')
    .option(
      '--start-at <time>',
      'fetch tokens and open connections, then start the clock at this instant: ISO 8601 with a zone, or Unix seconds (env RPCLOAD_START_AT)',
    )
    .addOption(
      new Option('--ui <mode>', 'live view: tui on a terminal, plain lines in CI or when piped')
        .choices(['auto', 'tui', 'plain', 'none'])
        .default('auto'),
    )
    .option('--json', 'print the summary as JSON on stdout instead of a table')
    .action(async (profilePath: string | undefined, flags: RunFlags) => {
      const plan = await loadPlan(profilePath ?? defaultProfilePath(), overridesOf(flags));
      const { shard, startAtEpochMs } = resolveShardOptions(flags, process.env, plan);
      // With the result on stdout, everything else a user reads goes to stderr.
      const toStdout = flags.out === STDOUT_PATH;
      const say = toStdout ? process.stderr : process.stdout;
      const mode = toStdout ? 'none' : resolveUiMode(flags.ui, { isTTY: process.stdout.isTTY === true, ci: process.env.CI });
      const session = await withInterrupt((signal, stop) =>
        runSession({
          plan,
          workers: flags.workers ?? 1,
          shard,
          startAtEpochMs,
          ...(flags.out === undefined ? {} : { outPath: flags.out }),
          createView: (source) => createRunView(mode, source, { onQuit: stop }),
          signal,
        }),
      );
      const { result, path } = session;
      if (flags.json && !toStdout) {
        const { run, summary, byMethod, thresholds, checks, warnings } = result;
        const json = redactSecrets({ resultFile: path, run, summary, byMethod, thresholds, checks, warnings });
        say.write(`${JSON.stringify(json, null, 2)}\n`);
      } else {
        say.write(`${renderSummaryTable(result, { color: colourEnabled(say) })}\nresult file: ${toStdout ? 'stdout' : path}\n`);
      }
      if (session.writeProblem !== null) process.stderr.write(`warning: ${session.writeProblem}\n`);
      setExitCode(session.exitCode);
    });
}
