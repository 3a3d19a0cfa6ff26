/** What `rpcload report` does once its flags are parsed; loaded only when it runs (report.ts declares the flags). */
import { describeError, RpcloadError } from '../errors.ts';
import { assertSameKind, readResultFile } from '../result-file/read-result.ts';
import { isTraceUrlTemplate, TRACE_URL_EXPECTED } from '../profile/trace-url.ts';
import { renderReport } from '../results/report/render-report.ts';
import { assertDistinctFiles, assertSafeOutput, writeFileAtomically } from '../util/output-files.ts';

export interface ReportFlags {
  readonly out?: string;
  readonly baseline?: string;
  readonly traceUrl?: string;
}

/** The report's default path: the result file's, with .html instead of .json. */
export function defaultReportPath(resultPath: string): string {
  return resultPath.endsWith('.json') ? `${resultPath.slice(0, -'.json'.length)}.html` : `${resultPath}.html`;
}

/** The run's profile's report.traceUrl, as its result file's config records it, when it is a usable template. */
function profileTraceUrl(config: Readonly<Record<string, unknown>>): string | null {
  const report = config.report as { traceUrl?: unknown } | null | undefined;
  const template = typeof report === 'object' && report !== null ? report.traceUrl : undefined;
  return typeof template === 'string' && isTraceUrlTemplate(template) ? template : null;
}

/** `rpcload report RESULT [--out FILE] [--baseline OTHER]`: the HTML page written. */
export async function reportAction(resultPath: string, flags: ReportFlags): Promise<void> {
  if (flags.traceUrl !== undefined && !isTraceUrlTemplate(flags.traceUrl))
    throw new RpcloadError(
      'bad_flag',
      `--trace-url: expected ${TRACE_URL_EXPECTED}, found ${JSON.stringify(flags.traceUrl)}`,
    );
  const out = flags.out ?? defaultReportPath(resultPath);
  await assertDistinctFiles(
    [{ name: '--out', path: out }],
    [
      { name: 'the result file', path: resultPath },
      { name: '--baseline', path: flags.baseline },
    ],
  );
  await assertSafeOutput(out, '--out', 'the report');
  const [result, baseline] = await Promise.all([
    readResultFile(resultPath),
    flags.baseline === undefined ? undefined : readResultFile(flags.baseline),
  ]);
  if (baseline !== undefined && flags.baseline !== undefined)
    assertSameKind({ label: resultPath, result }, { label: flags.baseline, result: baseline });
  const html = renderReport(
    { label: resultPath, result },
    baseline && flags.baseline ? { label: flags.baseline, result: baseline } : undefined,
    flags.traceUrl ?? profileTraceUrl(result.config),
  );
  try {
    // Atomically: a full disk leaves the previous report (or none), never a truncated page.
    await writeFileAtomically(out, html);
  } catch (err) {
    throw new RpcloadError(
      'bad_output',
      `${out}: cannot write the report (${(err as NodeJS.ErrnoException).code ?? describeError(err)})`,
    );
  }
  process.stdout.write(`report → ${out}\n`);
}
