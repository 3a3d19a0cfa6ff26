import type { Command } from 'commander';
import { RpcloadError } from '../errors.ts';

/** `rpcload merge` — not implemented yet (placeholder until its issue lands). */
export function registerMergeCommand(program: Command): void {
  program
    .command('merge')
    .description('(not implemented yet)')
    .action(() => {
      throw new RpcloadError('not_implemented', 'merge is not implemented yet');
    });
}
