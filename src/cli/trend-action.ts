/** What `rpcload trend` does once its flags are parsed; loaded only when it runs (trend.ts declares the flags). */
import { appendFile, writeFile } from 'node:fs/promises';
import { ExitCode, RpcloadError } from '../errors.ts';
import { readTrendInput } from '../results/trend/read-trend.ts';
import { renderTrendHtml, renderTrendMarkdown, renderTrendTable } from '../results/trend/render-trend.ts';
import { trendSeries } from '../results/trend/trend-series.ts';
import { setExitCode } from './exit.ts';
import { assertDistinctFiles } from '../util/output-files.ts';

export interface TrendFlags {
  readonly markdown?: boolean;
  readonly html?: string;
  readonly window: number;
  readonly summaryMd?: string;
  readonly allowIncomplete?: boolean;
}

async function write(path: string, text: string, append: boolean): Promise<void> {
  await (append ? appendFile(path, text, 'utf8') : writeFile(path, text, 'utf8')).catch(
    (err: NodeJS.ErrnoException) => {
      throw new RpcloadError('write_failed', `${path}: cannot write: ${err.code ?? err.message}`);
    },
  );
}

/** `rpcload trend FILES…`: the series printed (and written), exit 1 when the latest run got worse. */
export async function trendAction(paths: string[], flags: TrendFlags): Promise<void> {
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
}
