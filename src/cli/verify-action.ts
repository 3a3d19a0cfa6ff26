/** What `rpcload verify` does once its flags are parsed; loaded only when it runs (verify.ts declares the flags). */
import { RpcloadError } from '../errors.ts';
import { defaultProfilePath, loadPlan } from '../profile/load-profile.ts';
import type { Plan } from '../profile/plan.ts';
import { renderJunit } from '../results/junit.ts';
import { writeJunitFile } from '../results/result-junit.ts';
import { renderVerifyTable, verifyJson } from '../results/verify-table.ts';
import { verifySession } from '../session/verify-session.ts';
import { createVerifyView } from '../ui/create-view.ts';
import { resolveUiMode, type UiMode } from '../ui/ui-mode.ts';
import { redactSecrets } from '../util/redact.ts';
import { colourEnabled } from '../util/terminal-style.ts';
import type { VerifyFlags } from '../verify/config.ts';
import { setExitCode } from './exit.ts';
import { checkOutputFlags } from './output-flags.ts';
import { withInterrupt } from './signals.ts';
import type { TransportFlags } from './transport-flags.ts';
import { identityFromFlags } from './transport-identity.ts';

export interface VerifyOptions extends VerifyFlags, Omit<TransportFlags, 'http2'> {
  readonly ui: UiMode;
  readonly out?: string;
  readonly junit?: string;
  readonly json?: boolean;
  /** The PEM text of `--ca`. */
  readonly ca?: string;
}

/** The plan behind the run: the named profile, the default one when there is no --target, else none. */
async function planFor(profile: string | undefined, flags: VerifyOptions): Promise<Plan | null> {
  if (profile !== undefined) return loadPlan(profile);
  return flags.target === undefined ? loadPlan(defaultProfilePath()) : null;
}

/** `rpcload verify [profile]`: the checks run, the table (or JSON) printed, the result file written. */
export async function verifyAction(profile: string | undefined, flags: VerifyOptions): Promise<void> {
  if (flags.window !== undefined && flags.window <= 0)
    throw new RpcloadError('bad_flag', '--window: must be longer than 0');
  if (flags.timeout !== undefined && flags.timeout <= 0)
    throw new RpcloadError('bad_flag', '--timeout: must be longer than 0');
  await checkOutputFlags(flags, profile ?? (flags.target === undefined ? defaultProfilePath() : undefined));
  const identity = identityFromFlags(flags) ?? null;
  const plan = await planFor(profile, flags);
  const caPem = flags.ca ?? null;
  const mode = resolveUiMode(flags.ui, { isTTY: process.stdout.isTTY === true, ci: process.env.CI });
  const session = await withInterrupt((signal, stop) =>
    verifySession({
      plan,
      flags,
      caPem,
      identity,
      ...(flags.out === undefined ? {} : { outPath: flags.out }),
      createView: (header) => createVerifyView(mode, header, { onQuit: stop }),
      signal,
      warn: (warning) => process.stderr.write(`warning: ${warning}\n`),
    }),
  );
  const { report, config, outcome } = session;
  process.stdout.write(
    flags.json
      ? `${JSON.stringify(redactSecrets(verifyJson(report, config)), null, 2)}\n`
      : `\n${renderVerifyTable(report, config, colourEnabled(process.stdout))}`,
  );
  process.stderr.write(`result file: ${session.path}\n`);
  if (session.writeProblem !== null) process.stderr.write(`warning: ${session.writeProblem}\n`);
  if (!outcome.ok && !report.aborted) process.stderr.write(`verify: ${outcome.reason}\n`);
  if (flags.junit !== undefined) {
    const properties = { target: config.target, limit: String(config.limit), windowMs: String(config.windowMs) };
    await writeJunitFile(
      flags.junit,
      renderJunit(report.checks, {
        name: `rpcload verify ${config.target}`,
        timestamp: report.startedAt,
        durationMs: report.durationMs,
        properties,
        blockingSkips: outcome.blockingSkips,
      }),
    );
  }
  setExitCode(session.exitCode);
}
