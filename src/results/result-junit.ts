/**
 * JUnit XML of a `run` or `capacity` result, through verify's writer (junit.ts): each threshold
 * and each check is a test case, and a capacity result adds one case for the capacity itself
 * (failed when no load met the SLO or the confirmation failed).
 */
import type { CheckResult, RunResult } from '../contract/result-schema.ts';
import { RpcloadError } from '../errors.ts';
import { writeFileAtomically } from '../util/output-files.ts';
import { renderJunit } from './junit.ts';

/** The result's verdicts as check-shaped test cases. */
export function resultTestCases(result: RunResult): CheckResult[] {
  const thresholds: CheckResult[] = result.thresholds.map((t) => ({
    id: `threshold: ${t.expr}`,
    verdict: t.ok ? 'pass' : 'fail',
    detail: `${t.expr} (actual ${t.actual === null ? 'n/a' : t.actual})`,
    evidence: { actual: t.actual },
  }));
  const capacity = result.capacity;
  const capacityCase: CheckResult[] =
    capacity === undefined
      ? []
      : [
          {
            id: 'capacity',
            verdict: capacity.ratePerS !== null && capacity.confirmation?.passed !== false ? 'pass' : 'fail',
            detail: capacity.finding,
            evidence: { ratePerS: capacity.ratePerS, bracket: capacity.bracket, limitedBy: capacity.limitedBy, atLeast: capacity.atLeast },
          },
        ];
  return [...capacityCase, ...thresholds, ...result.checks];
}

export function renderResultJunit(result: RunResult): string {
  const { run } = result;
  const started = Date.parse(run.startedAt);
  const ended = run.endedAt === null ? started : Date.parse(run.endedAt);
  return renderJunit(
    resultTestCases(result),
    {
      name: `rpcload ${run.kind} ${run.profile}${run.label === undefined ? '' : ` ${run.label}`}`,
      timestamp: new Date(started),
      durationMs: Math.max(0, ended - started),
      properties: { target: run.target, status: run.status, ...(run.label === undefined ? {} : { label: run.label }) },
    },
    `rpcload.${run.kind}`,
  );
}

/** Write a JUnit file atomically (never half a file); a path that cannot be written is a one-line error (exit 2). */
export async function writeJunitFile(path: string, xml: string): Promise<void> {
  await writeFileAtomically(path, xml).catch((err: NodeJS.ErrnoException) => {
    throw new RpcloadError('write_failed', `${path}: cannot write the JUnit file: ${err.code ?? err.message}`);
  });
}
