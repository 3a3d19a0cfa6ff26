/**
 * `rpcload setup PROFILE --out values.json` and `rpcload teardown PROFILE --setup-values values.json`:
 * a profile's setup and teardown on their own, so a run split into shards creates its fixture once
 * (each shard runs with `run --setup-values values.json`, which skips setup and teardown). This
 * file declares the flags; setup-action.ts, loaded when one runs, does it.
 */
import type { Command } from 'commander';
import { httpUrl } from './parsers.ts';
import { addTransportOptions } from './transport-flags.ts';
import type { SetupFlags } from './setup-action.ts';

export function registerSetupCommands(program: Command): void {
  const setup = program
    .command('setup')
    .description("run a profile's setup steps once and write the values they saved, for `run --setup-values` (shards)")
    .argument('<profile>', 'profile file with a setup section')
    .requiredOption('--out <file>', 'where to write the values (JSON)')
    .option('--target <url>', 'target base URL (overrides the profile)', httpUrl);
  addTransportOptions(setup).action(async (profilePath: string, flags: SetupFlags) => {
    const { setupAction } = await import('./setup-action.ts');
    await setupAction(profilePath, flags);
  });
  const teardown = program
    .command('teardown')
    .description("run a profile's teardown steps once, with the values `rpcload setup` wrote")
    .argument('<profile>', 'profile file with a teardown section')
    .requiredOption('--setup-values <file>', 'the values file `rpcload setup --out` wrote')
    .option('--target <url>', 'target base URL (overrides the profile)', httpUrl);
  addTransportOptions(teardown).action(async (profilePath: string, flags: SetupFlags) => {
    const { teardownAction } = await import('./setup-action.ts');
    await teardownAction(profilePath, flags);
  });
}
