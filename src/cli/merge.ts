/**
 * `rpcload merge FILE|DIR … --out F`: one result file, one verdict and one exit code from the shards
 * of one run. This file declares the flags; merge-action.ts, loaded when the command runs, does it.
 */
import type { Command } from 'commander';
import { durationMs } from './parsers.ts';
import type { MergeFlags } from './merge-action.ts';

export function registerMergeCommand(program: Command): void {
  program
    .command('merge')
    .description(
      'merge the result files of the shards of one run into one result, judged as one run (exit codes as run)',
    )
    .argument('<paths...>', 'result files, or directories whose shard files (run --shard) are merged')
    .usage('<paths...> --out <file> [options]')
    .requiredOption('--out <file>', 'where to write the merged result file (required)')
    .option('--partial', 'merge the shards present when some are missing (the result says so, and the exit code is 1)')
    .option('--run-id <id>', 'in directories, only the shard files of this run')
    .option(
      '--profile <file>',
      "judge this profile's thresholds on the merged result instead of those the shards recorded",
    )
    .option('--wait <duration>', "wait up to this long for the run's shard set to be complete (e.g. 10m)", durationMs)
    .option(
      '--force',
      'merge hand-made shards (files without run.shard) even when their profiles or load shapes differ',
    )
    .option('--json', 'print the summary as JSON on stdout instead of a table')
    .action(async (paths: string[], flags: MergeFlags) => {
      const { mergeAction } = await import('./merge-action.ts');
      await mergeAction(paths, flags);
    });
}
