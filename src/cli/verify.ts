/** `rpcload verify [profile]`: the conformance checks, with evidence; writes one result file. */
import { Option, type Command } from 'commander';
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
import { caFile, collect, durationMs, httpUrl, oneOf, positiveInt, replicaUrl } from './parsers.ts';
import { checkOutputFlags } from './output-flags.ts';
import { withInterrupt } from './signals.ts';
import { addTransportOptions, identityFromFlags, type TransportFlags } from './transport-flags.ts';

interface VerifyOptions extends VerifyFlags, Omit<TransportFlags, 'http2'> {
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

export function registerVerifyCommand(program: Command): void {
  const command = program
    .command('verify')
    .description('conformance checks of the API conventions, with evidence (exit 1 when a check fails)')
    .argument(
      '[profile]',
      'profile to take target, auth, clients, methods and rate limit from (default: profiles/demo.json when no --target)',
    )
    .option('--target <url>', 'base URL of the API', httpUrl)
    .option('--client <id:secret>', 'client credentials (repeatable; 6 or more let the suite finish in about two windows)', collect)
    .option('--client-pattern <pattern:secret>', 'the first 6 clients of an ID pattern sharing one secret, e.g. app-{n}:SECRET')
    .option('--secret-env <var>', 'environment variable holding the secret of --client IDs / --client-pattern given without :SECRET')
    .option('--token-method <name>', 'token request method name (default auth.token)')
    .option('--client-auth <method>', 'client authentication: post (client_secret_post) or basic', oneOf(['post', 'basic'] as const))
    .option('--method <name>', 'method to call (repeatable; the first is the cheap probe method)', collect)
    .option('--paginated <name[:field]>', 'paginated method, optionally naming its array field (repeatable)', collect)
    .option('--limit <n>', 'requests per window per client (default 100)', positiveInt)
    .option('--window <duration>', 'rate-limit window (default 10s)', durationMs)
    .option('--payload-limit <bytes>', 'pin the payload limit (default: 100,000 or 102,400 both pass)', positiveInt)
    .option('--only <ids>', 'run only these check ids (comma-separated)')
    .option('--out <file>', 'result file (default results/<UTC timestamp>-<profile>.json)')
    .option('--junit <file>', 'also write JUnit XML')
    .option('--json', 'print the checks as JSON on stdout instead of the table')
    .addOption(
      new Option('--ui <mode>', 'live view: the check board on a terminal, plain lines in CI or when piped')
        .choices(['auto', 'tui', 'plain', 'none'])
        .default('auto'),
    )
    .option('--ca <file>', 'extra CA certificate (PEM) to trust for an https target', caFile)
    .option('--insecure', 'do not verify the https certificate')
    .option(
      '--timeout <duration>',
      "every request's overall deadline, token requests included (default 30s or the profile's http.requestTimeout)",
      durationMs,
    )
    .option(
      '--allow-skip [list]',
      'skips that do not fail the run: all, or comma-separated skip classes (not_applicable, target_broken, inconclusive, internal_error) and check ids',
    )
    .option('--strict-retry-after', 'fail when Retry-After overstates the wait by more than whole-second rounding')
    .option(
      '--replica <url>',
      'a replica of the API reached directly, e.g. a pod IP or per-instance port (repeatable; ratelimit.replicas)',
      (value: string, previous: string[] | undefined) => collect(replicaUrl(value), previous),
    )
    .option(
      '--fault <command>',
      'shell command that breaks what the limiter depends on, e.g. stops its Redis (with --heal; ratelimit.store_outage, ratelimit.restart)',
    )
    .option('--heal <command>', 'shell command that repairs it again (with --fault)')
    .option(
      '--outage-policy <policy>',
      'what the limiter should do while its store is down: open (let traffic through) or closed (keep refusing); default: report it, not judged',
      oneOf(['open', 'closed'] as const),
    )
    .option('--hook-timeout <duration>', 'deadline of each --fault/--heal command (default 60s)', durationMs)
    .option('--hooks-on-embedded', 'run --fault/--heal even when the target is the embedded reference server');
  addTransportOptions(command).action(async (profile: string | undefined, flags: VerifyOptions) => {
    if (flags.window !== undefined && flags.window <= 0) throw new RpcloadError('bad_flag', '--window: must be longer than 0');
    if (flags.timeout !== undefined && flags.timeout <= 0) throw new RpcloadError('bad_flag', '--timeout: must be longer than 0');
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
  });
}
