/**
 * `rpcload setup PROFILE --out values.json` and `rpcload teardown PROFILE --setup-values values.json`:
 * a profile's setup and teardown on their own, so a run split into shards creates its fixture once
 * (each shard runs with `run --setup-values values.json`, which skips setup and teardown).
 */
import type { Command } from 'commander';
import { ExitCode } from '../errors.ts';
import { loadPlan } from '../profile/load-profile.ts';
import type { SetupRecord } from '../contract/result-schema.ts';
import { readSetupValues, setupStepsSession, writeSetupValues } from '../session/setup-session.ts';
import { setExitCode } from './exit.ts';
import { withInterrupt } from './signals.ts';
import { addTransportOptions, transportOverridesOf, type TransportFlags } from './transport-flags.ts';
import { httpUrl } from './parsers.ts';

interface SetupFlags extends TransportFlags {
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

export function registerSetupCommands(program: Command): void {
  const setup = program
    .command('setup')
    .description("run a profile's setup steps once and write the values they saved, for `run --setup-values` (shards)")
    .argument('<profile>', 'profile file with a setup section')
    .requiredOption('--out <file>', 'where to write the values (JSON)')
    .option('--target <url>', 'target base URL (overrides the profile)', httpUrl);
  addTransportOptions(setup).action(async (profilePath: string, flags: SetupFlags) => {
    const plan = await loadPlan(profilePath, {
      ...(flags.target === undefined ? {} : { target: flags.target }),
      ...transportOverridesOf(flags),
    });
    const outcome = await withInterrupt((signal) => setupStepsSession(plan, 'setup', null, signal));
    process.stdout.write(`${outcomeLine('setup', outcome.record)}\n`);
    if (outcome.record.status !== 'ok') return setExitCode(signalledOrFailed(outcome.record));
    await writeSetupValues(flags.out!, plan, outcome.record, outcome.values);
    process.stdout.write(`setup values: ${flags.out!} (${outcome.record.saved.join(', ') || 'none saved'})\n`);
  });
  const teardown = program
    .command('teardown')
    .description("run a profile's teardown steps once, with the values `rpcload setup` wrote")
    .argument('<profile>', 'profile file with a teardown section')
    .requiredOption('--setup-values <file>', 'the values file `rpcload setup --out` wrote')
    .option('--target <url>', 'target base URL (overrides the profile)', httpUrl);
  addTransportOptions(teardown).action(async (profilePath: string, flags: SetupFlags) => {
    const plan = await loadPlan(profilePath, {
      ...(flags.target === undefined ? {} : { target: flags.target }),
      ...transportOverridesOf(flags),
    });
    const values = await readSetupValues(flags.setupValues!, plan);
    const outcome = await withInterrupt((signal) => setupStepsSession(plan, 'teardown', values.values, signal));
    process.stdout.write(`${outcomeLine('teardown', outcome.record)}\n`);
    if (outcome.record.status !== 'ok') setExitCode(signalledOrFailed(outcome.record));
  });
}

/** 130 for steps a Ctrl-C cut short, 1 for steps that failed. */
function signalledOrFailed(record: SetupRecord): ExitCode {
  return record.status === 'skipped' ? ExitCode.interrupted : ExitCode.failed;
}
