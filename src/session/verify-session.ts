/**
 * A whole `rpcload verify`, in the same steps as a run: resolve the configuration, open the
 * target (the embedded reference server, configured with the contract under test, when the plan
 * has none), run the checks through a live view, and write the result file.
 */
import type { ClientTlsIdentity } from '../api/dispatcher.ts';
import type { VerifyHeader, VerifyView } from '../contract/live-view.ts';
import type { RunResult } from '../contract/result-schema.ts';
import { ExitCode, RpcloadError } from '../errors.ts';
import { emptyRecordedData } from '../metrics/recorded-data.ts';
import type { Plan } from '../profile/plan.ts';
import { CHECK_IDS } from '../verify/check-ids.ts';
import { resolveVerifyConfig, type VerifyConfig, type VerifyFlags } from '../verify/config.ts';
import { runVerify, type VerifyReport } from '../verify/runner.ts';
import { judgeVerifyOutcome, type VerifyOutcome } from '../verify/skip-policy.ts';
import { buildRunResult } from './result/build-result.ts';
import { SessionFrame } from './session-frame.ts';
import { insecureWarning, openTarget } from './target.ts';

export interface VerifySessionOptions {
  /** The profile's plan (target, auth, clients, methods, contract), or null when flags say it all. */
  readonly plan: Plan | null;
  readonly flags: VerifyFlags;
  /** The text of `--ca`, when given. */
  readonly caPem: string | null;
  /** The client certificate of `--cert`/`--key` or `--pfx`, when given. */
  readonly identity?: ClientTlsIdentity | null;
  /** Result file path; default results/<UTC timestamp>-<profile>.json. */
  readonly outPath?: string;
  readonly createView: (header: VerifyHeader) => VerifyView;
  /** Abort = stop: running checks end as skipped (interrupted), the result file is still written. */
  readonly signal: AbortSignal;
  /** Told, before the checks start, what the result file will also record as warnings (e.g. `--insecure`). */
  readonly warn?: (warning: string) => void;
}

export interface VerifySessionResult {
  readonly result: RunResult;
  readonly report: VerifyReport;
  readonly config: VerifyConfig;
  /** Where the result file was written: the path asked for, or a fallback when that failed at the end. */
  readonly path: string;
  /** Why the result file is not at the path asked for; null when it is. */
  readonly writeProblem: string | null;
  /** Whether the verdicts add up to a pass, and why not (skips count: see skip-policy). */
  readonly outcome: VerifyOutcome;
  readonly exitCode: ExitCode;
}

export async function verifySession(options: VerifySessionOptions): Promise<VerifySessionResult> {
  const { plan, flags } = options;
  const profile = plan?.name ?? 'verify';
  // Flags are checked before anything starts; an embedded server's URL is filled in after.
  const resolved = resolveVerifyConfig(
    flags,
    plan,
    flags.target ?? plan?.target ?? '',
    options.caPem,
    options.identity ?? null,
  );
  const embedded = resolved.target === '' && plan !== null;
  if (embedded && resolved.replicas.length > 0)
    throw new RpcloadError(
      'bad_flag',
      '--replica: replicas need a --target (the URL clients use); the embedded server has no replicas',
    );
  // The reference server verifies the contract under test, so `--limit 10 --window 1s` is a quick demo.
  const insecure = embedded ? null : insecureWarning(resolved.target, resolved.insecure);
  // Found out now, not after the whole run.
  const frame = await SessionFrame.prepare({
    kind: 'verify',
    profile,
    outPath: options.outPath,
    plan: null,
    warnings: insecure === null ? [] : [insecure],
    warn: options.warn,
  });
  const openEmbedded = embedded ? () => openTarget(plan, { limit: resolved.limit, windowMs: resolved.windowMs }) : null;
  const { value } = await frame.serve(null, openEmbedded, async (target) => {
    const config: VerifyConfig =
      target === null
        ? resolved
        : { ...resolved, target: target.url, ca: resolved.ca ?? target.certPem, embeddedTarget: true };
    const view = options.createView({
      target: config.target,
      checkIds: config.only ?? CHECK_IDS,
      resultPath: frame.path,
    });
    view.start();
    let report: VerifyReport;
    try {
      report = await runVerify(config, { signal: options.signal, onProgress: (record) => view.onProgress(record) });
    } finally {
      view.stop();
    }
    const result = verifyResult(frame, report, config, profile, embedded);
    const outcome = judgeVerifyOutcome(report.checks, config.allowSkip);
    const written = await frame.writeFinal(result, exitCodeOf(report, outcome));
    return { result, report, config, outcome, ...written };
  });
  return value;
}

/** The resolved configuration as recorded in the result file (no secrets; the CA and client certificate only as facts). */
function configRecord(config: VerifyConfig, profile: string): Record<string, unknown> {
  const { clients, ca, identity, ...rest } = config;
  return {
    command: 'verify',
    profile,
    ...rest,
    clients: clients.map((c) => c.id),
    ca: ca === null ? null : 'given',
    identity: identity === null ? null : `(client certificate ${identity.source})`,
  };
}

function verifyResult(
  frame: SessionFrame,
  report: VerifyReport,
  config: VerifyConfig,
  profile: string,
  embedded: boolean,
): RunResult {
  return buildRunResult({
    run: frame.runInfo({
      status: report.aborted ? 'aborted' : 'completed',
      startedAtEpochMs: report.startedAt.getTime(),
      endedAt: report.endedAt.toISOString(),
      target: { url: config.target, embedded },
      model: 'none',
      workers: 1,
    }),
    config: configRecord(config, profile),
    data: emptyRecordedData(),
    dims: { methods: [], phases: [], clients: [] },
    checks: report.checks,
    thresholds: [],
    warnings: frame.warnings,
  });
}

function exitCodeOf(report: VerifyReport, outcome: VerifyOutcome): ExitCode {
  if (report.aborted) return ExitCode.interrupted;
  return outcome.ok ? ExitCode.ok : ExitCode.failed;
}
