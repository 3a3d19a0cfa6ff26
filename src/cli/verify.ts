import type { Command } from 'commander';
import { RpcloadError } from '../errors.ts';

/** `rpcload verify` — not implemented yet (placeholder until its issue lands). */
export function registerVerifyCommand(program: Command): void {
  program
    .command('verify')
    .description('(not implemented yet)')
    .action(() => {
      throw new RpcloadError('not_implemented', 'verify is not implemented yet');
    });
}
