/** `rpcload trend FILE…|DIR` — capacity, latency and errors across runs; exit 1 when the latest run got worse. */
import { appendFile, writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { ExitCode, RpcloadError } from '../errors.ts';
import { readTrendInput } from '../results/trend/read-trend.ts';
import { renderTrendHtml, renderTrendMarkdown, renderTrendTable } from '../results/trend/render-trend.ts';
import { trendSeries } from '../results/trend/trend-series.ts';
import { setExitCode } from './exit.ts';
import { positiveInt } from './parsers.ts';
import { assertDistinctFiles } from '../util/output-files.ts';

interface TrendFlags {
  readonly markdown?: boolean;
  readonly html?: string;
  readonly window: number;
  readonly summaryMd?: string;
  readonly allowIncomplete?: boolean;
}

async function write(path: string, text: string, append: boolean): Promise<void> {
  await (append ? appendFile(path, text, 'utf8') : writeFile(path, text, 'utf8')).catch((err: NodeJS.ErrnoException) => {
    throw new RpcloadError('write_failed', `${path}: cannot write: ${err.code ?? err.message}`);
  });
}

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
    .option('--allow-incomplete', 'include runs that did not complete (status running, aborted or failed) instead of refusing them')
    .action(async (paths: string[], flags: TrendFlags) => {
      const summary = flags.summaryMd ?? process.env.GITHUB_STEP_SUMMARY;
      await assertDistinctFiles(
        [
          { name: '--html', path: flags.html },
          { name: '--summary-md', path: summary === '' ? undefined : summary },
        ],
        paths.map((path) => ({ name: 'the input', path })),
      );
      const input = await readTrendInput(paths, flags.allowIncomplete ?? false);
      const series = trendSeries(input.points, flags.window);
      const markdown = renderTrendMarkdown(series);
      process.stdout.write(flags.markdown ? markdown : renderTrendTable(series));
      if (input.skipped.length > 0)
        process.stderr.write(`rpcload trend: skipped ${input.skipped.length} file(s) that are not result files\n`);
      if (flags.html !== undefined) await write(flags.html, renderTrendHtml(series), false);
      if (summary !== undefined && summary !== '') await write(summary, markdown, true);
      setExitCode(series.latestRegressed ? ExitCode.failed : ExitCode.ok);
    });
}
