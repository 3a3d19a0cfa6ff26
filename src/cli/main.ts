// The process entry point (bin/rpcload.js imports this file): run the CLI, then exit once output
// has drained, so a lingering socket or timer can never keep a finished command alive.
import { describeError, ExitCode } from '../errors.ts';
import { exitAfterFlush } from './exit.ts';
import { runCli } from './program.ts';
import { installSignalHandlers } from './signals.ts';

installSignalHandlers();
runCli(process.argv.slice(2)).then(exitAfterFlush, (err: unknown) => {
  process.stderr.write(`rpcload: internal error: ${describeError(err)}\n`);
  exitAfterFlush(ExitCode.failed);
});
