/** `rpcload run [profile]` — a load test; writes one result file. */
import { Option, type Command } from 'commander';
import type { PlanOverrides } from '../profile/build-plan.ts';
import { defaultProfilePath, loadPlan } from '../profile/load-profile.ts';
import { renderResultJunit, writeJunitFile } from '../results/result-junit.ts';
import { renderSummaryTable } from '../results/summary-table.ts';
import { runSession } from '../session/run-session.ts';
import { createRunView } from '../ui/create-view.ts';
import { resolveUiMode, type UiMode } from '../ui/ui-mode.ts';
import { colourEnabled } from '../util/terminal-style.ts';
import { setExitCode } from './exit.ts';
import { durationMs, httpUrl, positiveInt, positiveNumber } from './parsers.ts';
import { withInterrupt } from './signals.ts';

interface RunFlags {
  target?: string;
  rate?: number;
  concurrency?: number;
  duration?: number;
  clients?: number;
  workers?: number;
  out?: string;
  ui: UiMode;
  json?: boolean;
  label?: string;
  junit?: string;
}

function overridesOf(flags: RunFlags): PlanOverrides {
  return {
    ...(flags.target === undefined ? {} : { target: flags.target }),
    ...(flags.rate === undefined ? {} : { rate: flags.rate }),
    ...(flags.concurrency === undefined ? {} : { concurrency: flags.concurrency }),
    ...(flags.duration === undefined ? {} : { durationMs: flags.duration }),
    ...(flags.clients === undefined ? {} : { clients: flags.clients }),
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
      '--workers <n>',
      'load worker threads, each with its own connections over a share of the clients and of the load (at most one per client)',
      positiveInt,
    )
    .option('--out <file>', 'result file (default results/<UTC timestamp>-<profile>.json)')
    .addOption(
      new Option('--ui <mode>', 'live view: tui on a terminal, plain lines in CI or when piped')
        .choices(['auto', 'tui', 'plain', 'none'])
        .default('auto'),
    )
    .option('--json', 'print the summary as JSON on stdout instead of a table')
    .option('--label <text>', 'a label stored in the result file, e.g. the release under test')
    .option('--junit <file>', 'also write JUnit XML: each threshold and check as a test case')
    .action(async (profilePath: string | undefined, flags: RunFlags) => {
      const plan = await loadPlan(profilePath ?? defaultProfilePath(), overridesOf(flags));
      const mode = resolveUiMode(flags.ui, { isTTY: process.stdout.isTTY === true, ci: process.env.CI });
      const session = await withInterrupt((signal, stop) =>
        runSession({
          plan,
          workers: flags.workers ?? 1,
          ...(flags.out === undefined ? {} : { outPath: flags.out }),
          ...(flags.label === undefined ? {} : { label: flags.label }),
          createView: (source) => createRunView(mode, source, { onQuit: stop }),
          signal,
        }),
      );
      const { result, path } = session;
      if (flags.junit !== undefined) await writeJunitFile(flags.junit, renderResultJunit(result));
      if (flags.json) {
        const { run, summary, byMethod, thresholds, checks, warnings } = result;
        process.stdout.write(`${JSON.stringify({ resultFile: path, run, summary, byMethod, thresholds, checks, warnings }, null, 2)}\n`);
      } else {
        process.stdout.write(`${renderSummaryTable(result, { color: colourEnabled(process.stdout) })}\nresult file: ${path}\n`);
      }
      setExitCode(session.exitCode);
    });
}
