import { ExitCode } from '../errors.ts';

/**
 * Ctrl-C / SIGTERM handling for long-running commands: the first signal asks the command to stop
 * gracefully (it still writes its result file); a second one quits at once with exit 130.
 * Returns a function that removes the handlers.
 */
export function onInterrupt(stopGracefully: () => void): () => void {
  let interrupted = false;
  const handler = (): void => {
    if (interrupted) process.exit(ExitCode.interrupted);
    interrupted = true;
    stopGracefully();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}
