/** The raw-socket responder (raw-responder.ts) as the bench's target when nginx is absent. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import type { BenchTarget } from './bench-target.ts';

/** Start the raw-socket responder (raw-responder.ts) in a child process. */
export async function startRawResponder(): Promise<BenchTarget> {
  const script = fileURLToPath(new URL('./raw-responder.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', () => reject(new Error('the raw-socket responder exited before printing its port')));
  });
  const stopOnExit = (): void => void child.kill('SIGTERM');
  process.once('exit', stopOnExit);
  return {
    kind: 'raw-socket responder',
    description: `raw-socket responder (node:net, node ${process.version}, 1 process)`,
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    close: async () => {
      process.removeListener('exit', stopOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await gone;
    },
  };
}
