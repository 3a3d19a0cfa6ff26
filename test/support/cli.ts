import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { withTestHttpClientFlag } from './http-client.ts';

/** Absolute path of the launcher, so tests exercise exactly what users run. */
export const RPCLOAD_BIN = fileURLToPath(new URL('../../bin/rpcload.js', import.meta.url));

export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** Kill the child after this long (ms); default 60 s. */
  readonly timeoutMs?: number;
  /** Called once with the child, e.g. to send it a signal mid-run. */
  readonly onSpawn?: (child: ChildProcess) => void;
}

/** Run the built CLI in a child process and collect its output and exit code (a load runs on the test client, see http-client.ts). */
export function runRpcload(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RPCLOAD_BIN, ...withTestHttpClientFlag(args)], {
      cwd: options.cwd,
      env: { ...process.env, NO_COLOR: '1', CI: 'true', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    options.onSpawn?.(child);
  });
}
