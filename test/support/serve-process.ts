/** `rpcload serve` as a child process whose output can be read while it runs (for tests that follow its printed hints). */
import type { ChildProcess } from 'node:child_process';
import { runRpcload, type CliResult } from './cli.ts';

export interface ServeProcess {
  readonly url: string;
  /** The replicas' URLs it printed (`serve --replicas N`), in order. */
  readonly replicaUrls: readonly string[];
  /** Its process id, to send it signals (SIGUSR2 restarts its replicas). */
  readonly pid: number;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Resolves once stderr matches `pattern` (rejects after `timeoutMs`), with the match. */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** SIGTERM, then the exit and the whole output. */
  stop(): Promise<CliResult>;
  /** Send `signal` (e.g. SIGKILL: the server dies without closing anything), then the exit and the whole output. */
  kill(signal: NodeJS.Signals): Promise<CliResult>;
}

/** Start `rpcload serve ARGS` and resolve once it prints its URL. */
export async function startServeProcess(args: readonly string[]): Promise<ServeProcess> {
  let child: ChildProcess | undefined;
  const done = runRpcload(['serve', ...args], { timeoutMs: 60_000, onSpawn: (c) => (child = c) });
  let stdout = '';
  let stderr = '';
  child!.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child!.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const found = /^rpcload serve: listening on (\S+)$/m.exec(stdout)?.[1];
      if (found !== undefined) resolve(found);
    });
    child!.once('exit', () => reject(new Error(`serve exited before listening: ${stderr}`)));
  });
  // The replica lines are written right after the first one; the summary on stderr follows them.
  const replicas = Number(/--replicas[= ](\d+)/.exec(args.join(' '))?.[1] ?? 1);
  const deadline = Date.now() + 10_000;
  while (
    replicas > 1 &&
    [...stdout.matchAll(/^rpcload serve: replica \d+ listening on \S+$/gm)].length < replicas &&
    Date.now() < deadline
  )
    await new Promise((resolve) => setTimeout(resolve, 20));
  return {
    url,
    replicaUrls: [...stdout.matchAll(/^rpcload serve: replica \d+ listening on (\S+)$/gm)].map((m) => m[1]!),
    pid: child!.pid!,
    stderr: () => stderr,
    waitForStderr: async (pattern, timeoutMs = 5000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = pattern.exec(stderr);
        if (match) return match;
        if (Date.now() > deadline) throw new Error(`serve's stderr never matched ${pattern}: ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    stop: () => {
      child!.kill('SIGTERM');
      return done;
    },
    kill: (signal) => {
      child!.kill(signal);
      return done;
    },
  };
}

/** Start `rpcload serve ARGS`, run `use` against its URL, then SIGTERM it; returns the exit and output. */
export async function serveWhile(args: readonly string[], use: (url: string) => Promise<void>): Promise<CliResult> {
  const serve = await startServeProcess(args);
  try {
    await use(serve.url);
  } catch (err) {
    await serve.stop();
    throw err;
  }
  return serve.stop();
}
