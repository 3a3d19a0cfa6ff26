import type { Command } from 'commander';
import { RpcloadError } from '../errors.ts';

/** `rpcload compare` — not implemented yet (placeholder until its issue lands). */
export function registerCompareCommand(program: Command): void {
  program
    .command('compare')
    .description('(not implemented yet)')
    .action(() => {
      throw new RpcloadError('not_implemented', 'compare is not implemented yet');
    });
}
