/** What `rpcload setup` and `rpcload teardown` do; loaded only when one runs (setup.ts declares them). */
import type { SetupRecord } from '../contract/result-schema.ts';
import { ExitCode } from '../errors.ts';
import { loadPlan } from '../profile/load-profile.ts';
import { readSetupValues, setupStepsSession, writeSetupValues } from '../session/setup-session.ts';
import { setExitCode } from './exit.ts';
import { withInterrupt } from './signals.ts';
import type { TransportFlags } from './transport-flags.ts';
import { transportOverridesOf } from './transport-identity.ts';

export interface SetupFlags extends TransportFlags {
  target?: string;
  out?: string;
  setupValues?: string;
}

/** One line of what setup or teardown did. */
function outcomeLine(which: string, record: SetupRecord): string {
  const counts = Object.entries(record.outcomes)
    .map(([outcome, n]) => `${outcome} ${n}`)
    .join(', ');
  const done = `${which} ${record.status}: ${record.requests} request${record.requests === 1 ? '' : 's'} by ${record.client}`;
  return `${done}${counts === '' ? '' : ` (${counts})`}${record.reason === undefined ? '' : `: ${record.reason}`}`;
}

/** 130 for steps a Ctrl-C cut short, 1 for steps that failed. */
function signalledOrFailed(record: SetupRecord): ExitCode {
  return record.status === 'skipped' ? ExitCode.interrupted : ExitCode.failed;
}

const overridesOf = (flags: SetupFlags) => ({
  ...(flags.target === undefined ? {} : { target: flags.target }),
  ...transportOverridesOf(flags),
});

/** `rpcload setup PROFILE --out FILE`: the steps once, their values written for the shards. */
export async function setupAction(profilePath: string, flags: SetupFlags): Promise<void> {
  const plan = await loadPlan(profilePath, overridesOf(flags));
  const outcome = await withInterrupt((signal) => setupStepsSession(plan, 'setup', null, signal));
  process.stdout.write(`${outcomeLine('setup', outcome.record)}\n`);
  if (outcome.record.status !== 'ok') return setExitCode(signalledOrFailed(outcome.record));
  await writeSetupValues(flags.out!, plan, outcome.record, outcome.values);
  process.stdout.write(`setup values: ${flags.out!} (${outcome.record.saved.join(', ') || 'none saved'})\n`);
}

/** `rpcload teardown PROFILE --setup-values FILE`: the steps once, with setup's values. */
export async function teardownAction(profilePath: string, flags: SetupFlags): Promise<void> {
  const plan = await loadPlan(profilePath, overridesOf(flags));
  const values = await readSetupValues(flags.setupValues!, plan);
  const outcome = await withInterrupt((signal) => setupStepsSession(plan, 'teardown', values.values, signal));
  process.stdout.write(`${outcomeLine('teardown', outcome.record)}\n`);
  if (outcome.record.status !== 'ok') setExitCode(signalledOrFailed(outcome.record));
}
