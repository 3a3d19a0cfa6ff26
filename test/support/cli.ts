import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  /** Node's own options, before the launcher (`node --max-old-space-size=4096 bin/rpcload.js …`). */
  readonly nodeFlags?: readonly string[];
}

/** Run the built CLI in a child process and collect its output and exit code (a load runs on the test client, see http-client.ts). */
export function runRpcload(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...(options.nodeFlags ?? []), RPCLOAD_BIN, ...withTestHttpClientFlag(args)],
      {
        cwd: options.cwd,
        env: { ...process.env, NO_COLOR: '1', CI: 'true', ...options.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
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

/**
 * Run the CLI as runRpcload does, and name the Node built-in modules it loaded (e.g. `tls`,
 * `internal/crypto/random`), read from `process.moduleLoadList` as the process exits.
 */
export async function runRpcloadListingBuiltins(
  args: readonly string[],
  options: CliOptions = {},
): Promise<CliResult & { readonly builtins: readonly string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'rpcload-builtins-'));
  try {
    const listed = join(dir, 'builtins.txt');
    const preload = join(dir, 'list-builtins.cjs');
    writeFileSync(
      preload,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(listed)}, process.moduleLoadList.join('\\n')));`,
    );
    const result = await runRpcload(args, {
      ...options,
      env: { ...options.env, NODE_OPTIONS: `--require=${preload}` },
    });
    const builtins = readFileSync(listed, 'utf8')
      .split('\n')
      .flatMap((line) => (line.startsWith('NativeModule ') ? [line.slice('NativeModule '.length)] : []));
    return { ...result, builtins };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
