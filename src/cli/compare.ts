/**
 * `rpcload compare BASE HEAD`: exit 1 on a regression, 2 when the files cannot be compared. This file
 * declares the flags; compare-action.ts, loaded when the command runs, does it.
 */
import type { Command } from 'commander';
import { oneOf } from './parsers.ts';
import type { CompareFlags } from './compare-action.ts';

/**
 * The rules `--fail-on` applies when it is not given: results/compare/fail-on.ts's DEFAULT_FAIL_ON,
 * written out here because that module brings the histograms with it, which `--help` and every
 * other command would then load at start-up (test/architecture/start-up.test.ts keeps the two equal).
 */
export const FAIL_ON_DEFAULT = [
  'p50:+10%+1ms',
  'p99:+10%+1ms',
  'rps:-5%',
  'errors:+0.5pp',
  'checks:any-new-fail',
  'thresholds:any-new-fail',
].join(',');

export function registerCompareCommand(program: Command): void {
  program
    .command('compare')
    .description('compare two result files metric by metric, overall and per method; exit 1 on a regression')
    .argument('<base>', 'the baseline result file')
    .argument('<head>', 'the result file to judge against it')
    .option(
      '--format <format>',
      'table, markdown (CI summaries, PR comments) or json',
      oneOf(['table', 'markdown', 'json'] as const),
      'table',
    )
    .option(
      '--fail-on <rules>',
      'comma-separated regression rules, e.g. "p99:+10%+1ms,items.list:p50:+20ms,rps:-5%,errors:+0.5pp" (a % limit may add an absolute floor: +10%+1ms); capacity files: "capacity:-10%" (the default); "none" never fails',
      FAIL_ON_DEFAULT,
    )
    .option('--force', 'compare even when the two runs had different load shapes')
    .option(
      '--allow-different-sources',
      'compare replays of different recordings (or windows), or a replay with a synthetic run, instead of refusing them',
    )
    .option(
      '--allow-incomplete',
      'compare runs that did not complete (status running, aborted or failed) instead of refusing them',
    )
    .action(async (basePath: string, headPath: string, flags: CompareFlags) => {
      const { compareAction } = await import('./compare-action.ts');
      await compareAction(basePath, headPath, flags);
    });
}
