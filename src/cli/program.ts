import { Command } from 'commander';
import { TOOL } from '../version.ts';
import { registerCompareCommand } from './compare.ts';
import { registerMergeCommand } from './merge.ts';
import { registerProfileCommand } from './profile.ts';
import { registerReportCommand } from './report.ts';
import { registerRunCommand } from './run.ts';
import { registerServeCommand } from './serve.ts';
import { registerVerifyCommand } from './verify.ts';

/** Build the commander program with every command registered (one file per command). */
export function buildProgram(): Command {
  const program = new Command()
    .name(TOOL.name)
    .description('Load and rate-limit conformance testing for HTTP RPC-style APIs')
    .version(TOOL.version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .showHelpAfterError('(run with --help for usage)')
    .showSuggestionAfterError(true)
    .exitOverride();
  registerRunCommand(program);
  registerVerifyCommand(program);
  registerCompareCommand(program);
  registerReportCommand(program);
  registerMergeCommand(program);
  registerServeCommand(program);
  registerProfileCommand(program);
  program.commands.forEach((cmd) => cmd.exitOverride().showHelpAfterError('(run with --help for usage)'));
  return program;
}
