/** `rpcload merge FILE|DIR … --out F`: one result file, one verdict and one exit code from the shards of one run. */
import type { Command } from 'commander';
import { RpcloadError } from '../errors.ts';
import { mergeFiles } from '../results/merge/merge-files.ts';
import { renderSummaryTable } from '../results/summary-table.ts';
import { colourEnabled } from '../util/terminal-style.ts';
import { sanitizeText } from '../util/sanitize.ts';
import { setExitCode } from './exit.ts';
import { durationMs } from './parsers.ts';
import { withInterrupt } from './signals.ts';

interface MergeFlags {
  out: string;
  force?: boolean;
  partial?: boolean;
  runId?: string;
  profile?: string;
  wait?: number;
  json?: boolean;
}

export function registerMergeCommand(program: Command): void {
  program
    .command('merge')
    .description('merge the result files of the shards of one run into one result, judged as one run (exit codes as run)')
    .argument('<paths...>', 'result files, or directories whose shard files (run --shard) are merged')
    .usage('<paths...> --out <file> [options]')
    .requiredOption('--out <file>', 'where to write the merged result file (required)')
    .option('--partial', 'merge the shards present when some are missing (the result says so, and the exit code is 1)')
    .option('--run-id <id>', 'in directories, only the shard files of this run')
    .option('--profile <file>', "judge this profile's thresholds on the merged result instead of those the shards recorded")
    .option('--wait <duration>', "wait up to this long for the run's shard set to be complete (e.g. 10m)", durationMs)
    .option('--force', 'merge hand-made shards (files without run.shard) even when their profiles or load shapes differ')
    .option('--json', 'print the summary as JSON on stdout instead of a table')
    .action(async (paths: string[], flags: MergeFlags) => {
      if (paths.length === 0) throw new RpcloadError('bad_flag', 'merge: expected result files or directories');
      const merged = await withInterrupt((signal) =>
        mergeFiles({
          paths,
          out: flags.out,
          force: flags.force ?? false,
          partial: flags.partial ?? false,
          runId: flags.runId,
          profilePath: flags.profile,
          waitMs: flags.wait,
          signal,
          log: (line) => process.stderr.write(`${line}\n`),
        }),
      );
      const { result } = merged;
      if (flags.json) {
        const { run, summary, byMethod, thresholds, checks, warnings } = result;
        process.stdout.write(
          `${JSON.stringify({ resultFile: flags.out, run, summary, byMethod, thresholds, checks, warnings }, null, 2)}\n`,
        );
      } else {
        const set = result.run.shardSet;
        const what = set === undefined ? `${merged.files} files` : `${set.merged.length} of ${set.count} shards of run ${set.runId}`;
        process.stdout.write(
          `${renderSummaryTable(result, { color: colourEnabled(process.stdout) })}\nmerged ${sanitizeText(what)} → ${sanitizeText(flags.out)}\n`,
        );
      }
      setExitCode(merged.exitCode);
    });
}
