/**
 * `rpcload trend FILE…|DIR` — capacity, latency and errors across runs; exit 1 when the latest run
 * got worse. This file declares the flags; trend-action.ts, loaded when the command runs, does it.
 */
import type { Command } from 'commander';
import { positiveInt } from './parsers.ts';
import type { TrendFlags } from './trend-action.ts';

export function registerTrendCommand(program: Command): void {
  program
    .command('trend')
    .description(
      'capacity, p50/p99 and error rate of result files in time order; flags the latest run when it is worse than the median of the previous runs beyond the noise (exit 1)',
    )
    .argument('<files...>', 'result files, or directories of them')
    .option('--markdown', 'print markdown (for a CI job summary) instead of a table')
    .option('--html <file>', 'also write a self-contained HTML page with the charts')
    .option('--window <n>', 'judge each run against the median of this many runs before it', positiveInt, 5)
    .option('--summary-md <file>', 'append the markdown to this file (default: $GITHUB_STEP_SUMMARY when set)')
    .option(
      '--allow-incomplete',
      'include runs that did not complete (status running, aborted or failed) instead of refusing them',
    )
    .action(async (paths: string[], flags: TrendFlags) => {
      const { trendAction } = await import('./trend-action.ts');
      await trendAction(paths, flags);
    });
}
