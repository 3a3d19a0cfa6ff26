import type { Command } from 'commander';
import { RpcloadError } from '../errors.ts';

/** `rpcload run` — not implemented yet (placeholder until its issue lands). */
export function registerRunCommand(program: Command): void {
  program
    .command('run')
    .description('(not implemented yet)')
    .action(() => {
      throw new RpcloadError('not_implemented', 'run is not implemented yet');
    });
}
