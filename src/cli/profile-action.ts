/** What `rpcload profile validate` and `profile schema` do; loaded only when one runs (profile.ts declares them). */
import { ExitCode, RpcloadError } from '../errors.ts';
import { profileJsonSchemaText } from '../profile/profile-schema.ts';
import { loadPlan } from '../profile/load-profile.ts';
import type { Plan } from '../profile/plan.ts';
import { describeLoad } from '../profile/describe-plan.ts';
import type { ReplayPlan } from '../profile/replay-settings.ts';
import { formatDurationMs } from '../util/duration.ts';
import { setExitCode } from './exit.ts';
import { groupThousands } from '../util/number-format.ts';

/** `rpcload profile validate FILE…`: ok with a summary, or every problem (exit 2). */
export async function validateAction(files: readonly string[]): Promise<void> {
  for (const file of files) await validateOne(file);
}

/** `rpcload profile schema`: the profile JSON Schema on stdout. */
export function schemaAction(): void {
  process.stdout.write(profileJsonSchemaText());
}

/**
 * What `run` checks before any load, checked here too, so `ok` means `run` accepts the profile as
 * far as files go: the schema and its rules, then a replay's recording (scanned: every record, its
 * callers, the window) and every data file (read through: ragged rows, missing columns, no row).
 */
async function validateOne(file: string): Promise<void> {
  try {
    const plan = await withFilesRead(await loadPlan(file));
    process.stdout.write(`${file}: ok — ${summarize(plan)}\n`);
  } catch (err) {
    if (!(err instanceof RpcloadError)) throw err;
    // Problem lines already start with the file name; no "rpcload:" prefix, so they stay greppable.
    process.stderr.write(`${err.message}\n`);
    setExitCode(ExitCode.badInput);
  }
}

/**
 * The plan with its recordings scanned, its data files read through. The readers (the recording
 * formats, the CSV parser) load only for a profile that has such files: most validated profiles
 * have none, and loading them was ~90 KB of code at every `profile validate`.
 */
async function withFilesRead(loaded: Plan): Promise<Plan> {
  const replays = loaded.workloads.some((w) => w.replaySettings !== undefined);
  const plan = replays ? await (await import('../profile/replay-plan.ts')).prepareReplays(loaded) : loaded;
  if (plan.data.length === 0) return plan;
  const { scanDataSet } = await import('../driver/data-rows.ts');
  for (const set of plan.data) await scanDataSet(set);
  return plan;
}

const count = (n: number, noun: string): string => `${groupThousands(n)} ${noun}${n === 1 ? '' : 's'}`;

function summarize(plan: Plan): string {
  if (plan.workloads.length > 1) return describeWorkloads(plan);
  const totalMs = plan.phases.reduce((sum, phase) => sum + phase.durationMs, 0);
  const [only] = plan.workloads;
  if (only?.replay !== undefined) return describeReplay(only.replay, plan.clients.length, totalMs);
  return [
    count(plan.scenarios.length, 'scenario'),
    count(plan.phases.length, 'phase'),
    count(plan.clients.length, 'client'),
    `total duration ${formatDurationMs(totalMs)}`,
  ].join(', ');
}

/** A replay profile has no scenarios or phases of its own: say what it plays, by whom, for how long. */
function describeReplay(replay: ReplayPlan, clients: number, totalMs: number): string {
  const { facts } = replay;
  const whole = replay.fromMs === 0 && replay.toMs === null;
  const inWindow = whole ? '' : `; ${groupThousands(facts.callsInWindow)} in the window ${windowText(replay)}`;
  return [
    `replays ${facts.fileName} (${facts.format}, ${count(facts.calls, 'call')}${inWindow})`,
    `${count(facts.callers, 'caller')} sent by ${count(clients, 'client')}`,
    `speed ${replay.speed}×${replay.loop ? ', looped' : ''}`,
    `total duration ${formatDurationMs(totalMs)}`,
  ].join(', ');
}

function windowText(replay: ReplayPlan): string {
  const to = replay.toMs === null ? 'the end' : formatDurationMs(replay.toMs);
  return `${formatDurationMs(replay.fromMs)}–${to}`;
}

/** Several workloads: each by its load, then what they share. */
function describeWorkloads(plan: Plan): string {
  const endMs = Math.max(
    ...plan.workloads.map((w) => w.startAfterMs + w.phases.reduce((sum, p) => sum + plan.phases[p]!.durationMs, 0)),
  );
  const parts = plan.workloads.map((w) => {
    const phases = w.phases.map((p) => plan.phases[p]!);
    const start = w.startAfterMs > 0 ? ` from ${formatDurationMs(w.startAfterMs)}` : '';
    const load =
      w.replay !== undefined ? `replays ${w.replay.facts.fileName} at ${w.replay.speed}×` : describeLoad(phases);
    return `${w.name} (${load}, ${count(w.clients.length, 'client')}${start})`;
  });
  return [
    `${count(plan.workloads.length, 'workload')}: ${parts.join('; ')}`,
    count(plan.scenarios.length, 'scenario'),
    count(plan.clients.length, 'client'),
    `total duration ${formatDurationMs(endMs)}`,
  ].join(', ');
}
