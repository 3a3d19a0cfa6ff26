/** `rpcload compare BASE HEAD`: exit 1 on a regression, 2 when the files cannot be compared. */
import type { Command } from 'commander';
import { ExitCode } from '../errors.ts';
import {
  capacityRule,
  compareCapacity,
  isCapacityResult,
  renderCapacityComparison,
  renderCapacityComparisonMarkdown,
} from '../results/compare/compare-capacity.ts';
import { compareRuns } from '../results/compare/compare-runs.ts';
import { DEFAULT_FAIL_ON, parseFailOnRules } from '../results/compare/fail-on.ts';
import { renderComparisonMarkdown } from '../results/compare/render-markdown.ts';
import { renderComparisonTable } from '../results/compare/render-table.ts';
import { assertSameSource } from '../results/compare/replay-source.ts';
import { assertCompleted, readResultFile } from '../result-file/read-result.ts';
import { setExitCode } from './exit.ts';
import { oneOf } from './parsers.ts';

interface CompareFlags {
  readonly format: 'table' | 'markdown' | 'json';
  readonly failOn: string;
  readonly force?: boolean;
  readonly allowIncomplete?: boolean;
  readonly allowDifferentSources?: boolean;
}

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
      DEFAULT_FAIL_ON,
    )
    .option('--force', 'compare even when the two runs had different load shapes')
    .option(
      '--allow-different-sources',
      'compare replays of different recordings (or windows), or a replay with a synthetic run, instead of refusing them',
    )
    .option('--allow-incomplete', 'compare runs that did not complete (status running, aborted or failed) instead of refusing them')
    .action(async (basePath: string, headPath: string, flags: CompareFlags) => {
      // Rules first: a typo fails before any file is read. Capacity rules apply to capacity files.
      const written = flags.failOn.split(',').map((rule) => rule.trim());
      const metricRules = written.filter((rule) => !rule.startsWith('capacity:'));
      const rules = parseFailOnRules(metricRules.length > 0 ? metricRules.join(',') : 'none');
      const failOnCapacity = flags.failOn === DEFAULT_FAIL_ON ? null : flags.failOn;
      capacityRule(failOnCapacity);
      const [base, head] = await Promise.all([readResultFile(basePath), readResultFile(headPath)]);
      for (const [label, result] of [
        [basePath, base],
        [headPath, head],
      ] as const)
        assertCompleted(label, result, flags.allowIncomplete ?? false);
      const sourceDifference = assertSameSource(
        { label: basePath, result: base },
        { label: headPath, result: head },
        flags.allowDifferentSources ?? false,
      );
      if (sourceDifference !== null) process.stderr.write(`warning: the runs replay different sources: ${sourceDifference}\n`);
      if (isCapacityResult(base) || isCapacityResult(head)) {
        const capacity = compareCapacity({ label: basePath, result: base }, { label: headPath, result: head }, failOnCapacity);
        if (flags.format === 'json') process.stdout.write(`${JSON.stringify(capacity, null, 2)}\n`);
        else
          process.stdout.write(
            flags.format === 'markdown' ? renderCapacityComparisonMarkdown(capacity) : renderCapacityComparison(capacity),
          );
        setExitCode(capacity.regression ? ExitCode.failed : ExitCode.ok);
        return;
      }
      const comparison = compareRuns(
        { label: basePath, result: base },
        { label: headPath, result: head },
        { rules, force: flags.force ?? false },
      );
      if (flags.format === 'json') process.stdout.write(`${JSON.stringify(comparison, null, 2)}\n`);
      else if (flags.format === 'markdown') process.stdout.write(renderComparisonMarkdown(comparison));
      else process.stdout.write(renderComparisonTable(comparison, { color: process.stdout.isTTY === true && !process.env.NO_COLOR }));
      setExitCode(comparison.regression ? ExitCode.failed : ExitCode.ok);
    });
}
