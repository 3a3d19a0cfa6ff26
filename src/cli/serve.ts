import type { Command } from 'commander';
import { RpcloadError } from '../errors.ts';

/** `rpcload serve` — not implemented yet (placeholder until its issue lands). */
export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('(not implemented yet)')
    .action(() => {
      throw new RpcloadError('not_implemented', 'serve is not implemented yet');
    });
}
