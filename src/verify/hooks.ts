/**
 * The fault and heal hooks: a user's shell commands that break and repair what the limiter
 * depends on (stop and start Redis, restart a deployment). Each runs with a deadline in its own
 * process group (killed whole when the deadline passes), and what it printed is kept — its last
 * lines, sanitized; the runner redacts every secret it knows from the evidence.
 */
import { round } from './round-trip.ts';
import type { HookRun } from './verdicts/hook-runs.ts';
import { sanitizeText } from '../util/sanitize.ts';
import type { CheckPlan } from './check.ts';
import type { CheckContext } from './check-context.ts';
import type { VerifyConfig } from './config.ts';

/** Lines of each stream kept (the last ones: that is where a failing command says why). */
const KEPT_LINES = 20;
const LINE_CHARS = 200;
/** A stream is read up to this many characters; the rest is dropped (its tail is what is kept). */
const MAX_STREAM_CHARS = 64 * 1024;

function lastLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '')
    .slice(-KEPT_LINES)
    .map((line) => sanitizeText(line, LINE_CHARS));
}

/**
 * Run `command` with `sh -c` and wait for it to exit, at most `timeoutMs` (then its process group
 * is killed). Never rejects. Deliberately deaf to the check's abort signal: a heal must still run
 * after a Ctrl-C, or the target stays broken; the deadline bounds the wait instead.
 */
export function runHook(
  check: CheckContext,
  hook: HookRun['hook'],
  command: string,
  timeoutMs: number,
): Promise<HookRun> {
  const startedMs = check.elapsed();
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    // node:child_process (with net and dgram, ~7 ms) loaded by the verify runs that have hooks only.
    const { spawn } = process.getBuiltinModule('node:child_process');
    const child = spawn('/bin/sh', ['-c', command], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (text: string, chunk: string): string => (text.length >= MAX_STREAM_CHARS ? text : text + chunk);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout = keep(stdout, chunk)));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = keep(stderr, chunk)));
    const killGroup = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const deadline = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    const finish = (exitCode: number | null, signal: string | null, startError?: string): void => {
      clearTimeout(deadline);
      // A daemon the hook started may hold its pipes open: what was printed so far is enough.
      child.stdout.destroy();
      child.stderr.destroy();
      resolve({
        hook,
        command: sanitizeText(command, 500),
        startedMs: round(startedMs),
        durationMs: round(check.elapsed() - startedMs),
        exitCode,
        signal,
        timedOut,
        ...(startError === undefined ? {} : { startError }),
        stdout: lastLines(stdout),
        stderr: lastLines(stderr),
      });
    };
    child.once('error', (err: NodeJS.ErrnoException) => finish(null, null, err.code ?? err.message));
    child.once('exit', (code, signal) => finish(code, signal));
  });
}

/** Why the hook checks cannot run with this configuration, or null when they can. */
export function hooksUnavailable(config: VerifyConfig): string | null {
  if (config.hooks === null)
    return 'needs --fault CMD --heal CMD: the commands that break and repair what the limiter depends on';
  if (config.embeddedTarget && !config.hooks.onEmbedded)
    return "the target is rpcload's embedded reference server: the --fault/--heal hooks are not run against it (--hooks-on-embedded runs them anyway)";
  return null;
}

/** The plan of a check that runs the hooks (a fresh client, alone, a window plus both hooks' deadlines), or why it cannot run. */
export function hookCheckPlan(config: VerifyConfig): CheckPlan | string {
  return (
    hooksUnavailable(config) ?? {
      needs: [{ kind: 'fresh' }],
      countsQuota: true,
      estimateMs: config.windowMs + 2 * config.hooks!.timeoutMs,
      runsAlone: true,
    }
  );
}

/** How often a hook check polls the target after the heal: a tenth of a window, at most every 50 ms. */
export function healPollMs(windowMs: number): number {
  return Math.max(50, windowMs / 10);
}
