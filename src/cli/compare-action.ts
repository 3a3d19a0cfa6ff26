/** What `rpcload compare` does once its flags are parsed; loaded only when it runs (compare.ts declares the flags). */
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

export interface CompareFlags {
  readonly format: 'table' | 'markdown' | 'json';
  readonly failOn: string;
  readonly force?: boolean;
  readonly allowIncomplete?: boolean;
  readonly allowDifferentSources?: boolean;
}

/** `rpcload compare BASE HEAD`: the comparison printed, exit 1 on a regression. */
export async function compareAction(basePath: string, headPath: string, flags: CompareFlags): Promise<void> {
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
  if (sourceDifference !== null)
    process.stderr.write(`warning: the runs replay different sources: ${sourceDifference}\n`);
  if (isCapacityResult(base) || isCapacityResult(head)) {
    const capacity = compareCapacity(
      { label: basePath, result: base },
      { label: headPath, result: head },
      failOnCapacity,
    );
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
  else
    process.stdout.write(
      renderComparisonTable(comparison, { color: process.stdout.isTTY === true && !process.env.NO_COLOR }),
    );
  setExitCode(comparison.regression ? ExitCode.failed : ExitCode.ok);
}
