/** `rpcload profile validate FILE…` and `rpcload profile schema`. */
import type { Command } from 'commander';
import { ExitCode, RpcloadError } from '../errors.ts';
import { profileJsonSchemaText } from '../profile/profile-schema.ts';
import { loadPlan } from '../profile/load-profile.ts';
import type { Plan } from '../profile/plan.ts';
import { formatDurationMs } from '../util/duration.ts';
import { setExitCode } from './exit.ts';

export function registerProfileCommand(program: Command): void {
  const profile = program.command('profile').description('check profiles or print the profile JSON Schema');
  profile
    .command('validate')
    .description('check profiles: every problem, one per line ("file: /json/path: expected …, found …"); exit 2 on any')
    .argument('<files...>', 'profile files')
    .action(async (files: string[]) => {
      for (const file of files) await validateOne(file);
    });
  profile
    .command('schema')
    .description('print the profile JSON Schema (the same as schemas/profile.schema.json)')
    .action(() => {
      process.stdout.write(profileJsonSchemaText());
    });
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
