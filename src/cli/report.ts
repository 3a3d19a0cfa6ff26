/**
 * `rpcload report`: a result file (and optionally a baseline) as one self-contained HTML page. This
 * file declares the flags; report-action.ts, loaded when the command runs, does it.
 */
import type { Command } from 'commander';
import type { ReportFlags } from './report-action.ts';

/** `rpcload report RESULT [--out FILE] [--baseline OTHER]`: a self-contained HTML report. */
export function registerReportCommand(program: Command): void {
  program
    .command('report')
    .description(
      'write a self-contained HTML report (charts, per-method and per-client tables, checks) of a result file',
    )
    .argument('<result>', 'the result file')
    .option('--out <file>', 'where to write the report (default: the result file with .html)')
    .option('--baseline <file>', 'another result file to overlay (dashed) and show side by side')
    .option(
      '--trace-url <template>',
      "link exemplar trace ids, e.g. https://tempo.example/trace/{traceId} (default: the profile's report.traceUrl)",
    )
    .action(async (resultPath: string, flags: ReportFlags) => {
      const { reportAction } = await import('./report-action.ts');
      await reportAction(resultPath, flags);
    });
}
