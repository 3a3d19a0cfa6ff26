import { randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { Option, type Command } from 'commander';
import { ExitCode, RpcloadError } from '../errors.ts';
import { emptyRecordedData } from '../metrics/recorded-data.ts';
import { defaultProfilePath, loadPlan } from '../profile/load-profile.ts';
import type { Plan } from '../profile/plan.ts';
import { buildRunResult } from '../session/result/build-result.ts';
import { defaultResultPath, writeResultFile } from '../session/result/result-file.ts';
import type { RunResult } from '../contract/result-schema.ts';
import { renderJunit } from '../results/junit.ts';
import { startServerInWorker } from '../server/worker.ts';
import type { RemoteServerHandle } from '../server/options.ts';
import { createVerifyView } from '../ui/create-view.ts';
import { resolveUiMode, type UiMode } from '../ui/ui-mode.ts';
import { CHECK_IDS } from '../verify/check-ids.ts';
import type { VerifyConfig } from '../verify/config.ts';
import { renderVerifyTable, verifyJson } from '../results/verify-table.ts';
import { resolveVerifyConfig, type VerifyFlags } from '../verify/config.ts';
import { runVerify, type VerifyReport } from '../verify/runner.ts';
import { setExitCode } from './exit.ts';
import { collect, durationMs, httpUrl, oneOf, positiveInt } from './parsers.ts';
import { onInterrupt } from './signals.ts';

interface VerifyOptions extends VerifyFlags {
  readonly ui: UiMode;
  readonly out?: string;
  readonly junit?: string;
  readonly json?: boolean;
  readonly ca?: string;
}

/** Colour only for a terminal, and never when NO_COLOR or CI asks for plain text. */
function useColor(stream: NodeJS.WriteStream): boolean {
  return stream.isTTY === true && !process.env.NO_COLOR && process.env.CI !== 'true';
}

async function readCa(path: string | undefined): Promise<string | null> {
  if (path === undefined) return null;
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new RpcloadError('bad_flag', `--ca: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
}

/** The plan behind the run: the named profile, the default one when there is no --target, else none. */
async function planFor(profile: string | undefined, flags: VerifyOptions): Promise<Plan | null> {
  if (profile !== undefined) return loadPlan(profile);
  return flags.target === undefined ? loadPlan(defaultProfilePath()) : null;
}

/** The resolved configuration as recorded in the result file (no secrets, the CA only as a fact). */
function configRecord(config: VerifyConfig, profile: string): Record<string, unknown> {
  const { clients, ca, ...rest } = config;
  return { command: 'verify', profile, ...rest, clients: clients.map((c) => c.id), ca: ca === null ? null : 'given' };
}

function resultOf(report: VerifyReport, config: VerifyConfig, profile: string, embedded: boolean): RunResult {
  return buildRunResult({
    run: {
      id: randomUUID(),
      kind: 'verify',
      profile,
      startedAt: report.startedAt.toISOString(),
      endedAt: report.endedAt.toISOString(),
      status: report.aborted ? 'aborted' : 'completed',
      target: config.target,
      embeddedTarget: embedded,
      model: 'none',
      workers: 1,
      shards: 1,
      node: process.version,
      host: hostname(),
    },
    config: configRecord(config, profile),
    data: emptyRecordedData(),
    dims: { methods: [], phases: [], clients: [] },
    checks: report.checks,
    thresholds: [],
    warnings: [],
  });
}

async function verifyCommand(profile: string | undefined, flags: VerifyOptions): Promise<void> {
  const plan = await planFor(profile, flags);
  const profileName = plan?.name ?? 'verify';
  if (flags.window !== undefined && flags.window <= 0) throw new RpcloadError('bad_flag', '--window: must be longer than 0');
  let server: RemoteServerHandle | null = null;
  const stopping = new AbortController();
  const removeHandlers = onInterrupt(() => stopping.abort());
  try {
    // Flags are checked before anything starts; the embedded server's URL is filled in after.
    let config = resolveVerifyConfig(flags, plan, flags.target ?? plan?.target ?? '', await readCa(flags.ca));
    if (config.target === '' && plan !== null) {
      // A profile without a target (the demo): verify the reference server, in a worker thread,
      // configured with the contract under test (so `--limit 10 --window 1s` is a quick demo).
      server = await startServerInWorker({
        ...plan.embeddedServer,
        limit: config.limit,
        windowMs: config.windowMs,
        clients: plan.clients.map(({ id, secret }) => ({ id, secret })),
      });
      config = { ...config, target: server.url, ca: config.ca ?? server.certPem ?? null };
    }
    const outPath = flags.out ?? defaultResultPath(profileName, new Date());
    const mode = resolveUiMode(flags.ui, { isTTY: process.stdout.isTTY === true, ci: process.env.CI });
    const view = createVerifyView(mode, { target: config.target, checkIds: config.only ?? CHECK_IDS, resultPath: outPath }, { onQuit: () => stopping.abort() });
    view.start();
    let report: VerifyReport;
    try {
      report = await runVerify(config, { signal: stopping.signal, onProgress: (record) => view.onProgress(record) });
    } finally {
      view.stop();
    }
    process.stdout.write(flags.json ? `${JSON.stringify(verifyJson(report, config), null, 2)}\n` : `\n${renderVerifyTable(report, config, useColor(process.stdout))}`);
    await writeResultFile(outPath, resultOf(report, config, profileName, server !== null));
    process.stderr.write(`result file: ${outPath}\n`);
    if (flags.junit !== undefined) {
      const junit = renderJunit(report.checks, { name: `rpcload verify ${config.target}`, timestamp: report.startedAt, durationMs: report.durationMs, properties: { target: config.target, limit: String(config.limit), windowMs: String(config.windowMs) } });
      await writeFile(flags.junit, junit, 'utf8').catch((err: NodeJS.ErrnoException) => {
        throw new RpcloadError('write_failed', `${flags.junit}: cannot write the JUnit file: ${err.code ?? err.message}`);
      });
    }
    if (report.aborted) setExitCode(ExitCode.interrupted);
    else if (report.checks.some((c) => c.verdict === 'fail')) setExitCode(ExitCode.failed);
  } finally {
    removeHandlers();
    await server?.close();
  }
}

/** `rpcload verify [profile]`: the conformance checks (DESIGN.md's check ids). */
export function registerVerifyCommand(program: Command): void {
  program
    .command('verify')
    .description('conformance checks of the API conventions, with evidence (exit 1 when a check fails)')
    .argument('[profile]', 'profile to take target, auth, clients, methods and rate limit from (default: profiles/demo.json when no --target)')
    .option('--target <url>', 'base URL of the API', httpUrl)
    .option('--client <id:secret>', 'client credentials (repeatable; 6 or more let the suite finish in about two windows)', collect)
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
    .addOption(new Option('--ui <mode>', 'live view: the check board on a terminal, plain lines in CI or when piped').choices(['auto', 'tui', 'plain', 'none']).default('auto'))
    .option('--ca <file>', 'extra CA certificate (PEM) to trust for an https target')
    .option('--insecure', 'do not verify the https certificate')
    .option('--strict-retry-after', 'fail when Retry-After overstates the wait by more than whole-second rounding')
    .action((profile: string | undefined, flags: VerifyOptions) => verifyCommand(profile, flags));
}
