import type { Command } from 'commander';
import { RpcloadError } from '../errors.ts';

/** `rpcload profile` — not implemented yet (placeholder until its issue lands). */
export function registerProfileCommand(program: Command): void {
  program
    .command('profile')
    .description('(not implemented yet)')
    .action(() => {
      throw new RpcloadError('not_implemented', 'profile is not implemented yet');
    });
}
