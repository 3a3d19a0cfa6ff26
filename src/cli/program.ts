/** The commander program (one file per command) and the CLI's one error policy: exit codes and one-line messages. */
import { Command, CommanderError } from 'commander';
import { describeError, ExitCode, RpcloadError } from '../errors.ts';
import { redactText } from '../util/redact.ts';
import { getExitCode } from './exit.ts';
import { TOOL } from '../version.ts';
import { registerCapacityCommand } from './capacity.ts';
import { registerCompareCommand } from './compare.ts';
import { registerDeployCommand } from './deploy.ts';
import { registerMergeCommand } from './merge.ts';
import { registerProfileCommand } from './profile.ts';
import { registerReportCommand } from './report.ts';
import { registerRunCommand } from './run.ts';
import { registerServeCommand } from './serve.ts';
import { registerSetupCommands } from './setup.ts';
import { registerTrendCommand } from './trend.ts';
import { registerVerifyCommand } from './verify.ts';

type Registration = readonly [names: readonly string[], register: (program: Command) => void];

/** Each command file's registration, with the top-level commands it declares (a test keeps them equal). */
export const REGISTRATIONS: readonly Registration[] = [
  [['run'], registerRunCommand],
  [['verify'], registerVerifyCommand],
  [['capacity'], registerCapacityCommand],
  [['compare'], registerCompareCommand],
  [['report'], registerReportCommand],
  [['merge'], registerMergeCommand],
  [['trend'], registerTrendCommand],
  [['setup', 'teardown'], registerSetupCommands],
  [['serve'], registerServeCommand],
  [['profile'], registerProfileCommand],
  [['deploy'], registerDeployCommand],
];

/**
 * The commander program (one file per command). Given the command line, it declares only the
 * command that names: declaring the other ten, their options and help texts, was ~7 ms of every
 * start. `--version` first declares none; `--help`, `help` or an unknown name declares them all
 * (the list of commands, the "did you mean" suggestion).
 */
export function buildProgram(argv?: readonly string[]): Command {
  const first = argv?.[0];
  const named = REGISTRATIONS.find(([names]) => first !== undefined && names.includes(first));
  const declared = named ? [named] : first === '-V' || first === '--version' ? [] : REGISTRATIONS;
  const program = new Command()
    .name(TOOL.name)
    .description('Load and rate-limit conformance testing for HTTP RPC-style APIs')
    .version(TOOL.version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .showHelpAfterError('(run with --help for usage)')
    .showSuggestionAfterError(true)
    .exitOverride();
  for (const [, register] of declared) register(program);
  program.commands.forEach((cmd) => cmd.exitOverride().showHelpAfterError('(run with --help for usage)'));
  return program;
}

/** Commander codes that mean "help or version was printed", i.e. success. */
const INFORMATIONAL = new Set(['commander.helpDisplayed', 'commander.help', 'commander.version']);

/** Run the CLI with the given arguments (without `node` and the script) and return the exit code. */
export async function runCli(argv: readonly string[]): Promise<number> {
  const program = buildProgram(argv);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return getExitCode();
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander has already printed its one-line message and a hint; usage errors are exit 2.
      return INFORMATIONAL.has(err.code) ? ExitCode.ok : ExitCode.badInput;
    }
    if (err instanceof RpcloadError) {
      // A multi-line message lists problems that each name their file already (profile validation).
      const message = redactText(err.message);
      process.stderr.write(message.includes('\n') ? `${message}\n` : `rpcload: ${message}\n`);
      return err.exitCode;
    }
    const debug = Boolean(process.env.RPCLOAD_DEBUG);
    const where = debug ? '' : ' (RPCLOAD_DEBUG=1 prints where, in src/ files)';
    process.stderr.write(`rpcload: internal error: ${redactText(describeError(err))}${where}\n`);
    if (debug && err instanceof Error) process.stderr.write(`${err.stack}\n`);
    return ExitCode.failed;
  }
}
