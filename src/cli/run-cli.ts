import { CommanderError } from 'commander';
import { describeError, ExitCode, RpcloadError } from '../errors.ts';
import { getExitCode } from './exit.ts';
import { buildProgram } from './program.ts';

/** Commander codes that mean "help or version was printed", i.e. success. */
const INFORMATIONAL = new Set(['commander.helpDisplayed', 'commander.help', 'commander.version']);

/** Run the CLI with the given arguments (without `node` and the script) and return the exit code. */
export async function runCli(argv: readonly string[]): Promise<number> {
  const program = buildProgram();
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
      process.stderr.write(err.message.includes('\n') ? `${err.message}\n` : `rpcload: ${err.message}\n`);
      return err.exitCode;
    }
    process.stderr.write(`rpcload: internal error: ${describeError(err)}\n`);
    if (process.env.RPCLOAD_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
    return ExitCode.failed;
  }
}
