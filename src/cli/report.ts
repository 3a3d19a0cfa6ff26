import type { Command } from 'commander';
import { RpcloadError } from '../errors.ts';

/** `rpcload report` — not implemented yet (placeholder until its issue lands). */
export function registerReportCommand(program: Command): void {
  program
    .command('report')
    .description('(not implemented yet)')
    .action(() => {
      throw new RpcloadError('not_implemented', 'report is not implemented yet');
    });
}
