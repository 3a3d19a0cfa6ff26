/** What `rpcload profile validate` and `profile schema` do; loaded only when one runs (profile.ts declares them). */
import { ExitCode, RpcloadError } from '../errors.ts';
import { profileJsonSchemaText } from '../profile/profile-schema.ts';
import { loadPlan } from '../profile/load-profile.ts';
import type { Plan } from '../profile/plan.ts';
import { formatDurationMs } from '../util/duration.ts';
import { setExitCode } from './exit.ts';

/** `rpcload profile validate FILE…`: ok with a summary, or every problem (exit 2). */
export async function validateAction(files: readonly string[]): Promise<void> {
  for (const file of files) await validateOne(file);
}

/** `rpcload profile schema`: the profile JSON Schema on stdout. */
export function schemaAction(): void {
  process.stdout.write(profileJsonSchemaText());
}

async function validateOne(file: string): Promise<void> {
  try {
    const plan = await loadPlan(file);
    process.stdout.write(`${file}: ok — ${summarize(plan)}\n`);
  } catch (err) {
    if (!(err instanceof RpcloadError)) throw err;
    // Problem lines already start with the file name; no "rpcload:" prefix, so they stay greppable.
    process.stderr.write(`${err.message}\n`);
    setExitCode(ExitCode.badInput);
  }
}

function summarize(plan: Plan): string {
  const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;
  const totalMs = plan.phases.reduce((sum, phase) => sum + phase.durationMs, 0);
  return [
    count(plan.scenarios.length, 'scenario'),
    count(plan.phases.length, 'phase'),
    count(plan.clients.length, 'client'),
    `total duration ${formatDurationMs(totalMs)}`,
  ].join(', ');
}
