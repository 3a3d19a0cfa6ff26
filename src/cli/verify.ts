/**
 * `rpcload verify [profile]`: the conformance checks, with evidence; writes one result file. This
 * file declares the flags; verify-action.ts, loaded when the command runs, does it.
 */
import { Option, type Command } from 'commander';
import { collect, caFile, durationMs, httpUrl, oneOf, positiveInt, replicaUrl } from './parsers.ts';
import { addTransportOptions } from './transport-flags.ts';
import type { VerifyOptions } from './verify-action.ts';

export function registerVerifyCommand(program: Command): void {
  const command = program
    .command('verify')
    .description('conformance checks of the API conventions, with evidence (exit 1 when a check fails)')
    .argument(
      '[profile]',
      'profile to take target, auth, clients, methods and rate limit from (default: profiles/demo.json when no --target)',
    )
    .option('--target <url>', 'base URL of the API', httpUrl)
    .option(
      '--client <id:secret>',
      'client credentials (repeatable; 6 or more let the suite finish in about two windows)',
      collect,
    )
    .option(
      '--client-pattern <pattern:secret>',
      'the first 6 clients of an ID pattern sharing one secret, e.g. app-{n}:SECRET',
    )
    .option(
      '--secret-env <var>',
      'environment variable holding the secret of --client IDs / --client-pattern given without :SECRET',
    )
    .option('--token-method <name>', 'token request method name (default auth.token)')
    .option(
      '--client-auth <method>',
      'client authentication: post (client_secret_post) or basic',
      oneOf(['post', 'basic'] as const),
    )
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
    const { verifyAction } = await import('./verify-action.ts');
    await verifyAction(profile, flags);
  });
}
