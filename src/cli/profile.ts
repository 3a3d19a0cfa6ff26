/**
 * `rpcload profile validate FILE…` and `rpcload profile schema`. This file declares the commands;
 * profile-action.ts, loaded when one runs, does it.
 */
import type { Command } from 'commander';

export function registerProfileCommand(program: Command): void {
  const profile = program.command('profile').description('check profiles or print the profile JSON Schema');
  profile
    .command('validate')
    .description('check profiles: every problem, one per line ("file: /json/path: expected …, found …"); exit 2 on any')
    .argument('<files...>', 'profile files')
    .action(async (files: string[]) => {
      const { validateAction } = await import('./profile-action.ts');
      await validateAction(files);
    });
  profile
    .command('schema')
    .description('print the profile JSON Schema (the same as schemas/profile.schema.json)')
    .action(async () => {
      const { schemaAction } = await import('./profile-action.ts');
      schemaAction();
    });
}
