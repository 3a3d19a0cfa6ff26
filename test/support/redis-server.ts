/**
 * A real `redis-server` for tests, on a free port of 127.0.0.1 with its own temp dir and no
 * persistence, and the shell commands that stop it (`redis-cli … shutdown nosave`) and start it
 * again on the same port (daemonized, waiting until it answers PING) — the fault and heal hooks
 * of a store outage or a restart. Redis comes back empty, as an unpersisted store does.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './prometheus-text.ts';
import { sleep } from './server-helpers.ts';

export interface RedisProcess {
  readonly port: number;
  /** Stops Redis without saving (its data is gone). */
  readonly stopCommand: string;
  /** Starts Redis again on the same port and returns once it answers PING (exit 1 after 5 s). */
  readonly startCommand: string;
  /** Stop whichever Redis serves the port, and remove the temp dir. */
  close(): Promise<void>;
}

const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

function redisArgs(port: number, dir: string): string[] {
  return ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
}

function pong(port: number): boolean {
  const reply = spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8', timeout: 2000 });
  return reply.stdout?.trim() === 'PONG';
}

export async function startRedis(): Promise<RedisProcess> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'rpcload-redis-'));
  const first = spawn('redis-server', redisArgs(port, dir), { stdio: 'ignore' });
  const deadline = Date.now() + 10_000;
  while (!pong(port)) {
    if (first.exitCode !== null || Date.now() > deadline)
      throw new Error(`redis-server did not answer on 127.0.0.1:${port}`);
    await sleep(50);
  }
  const daemon = [
    'redis-server',
    ...redisArgs(port, dir),
    '--daemonize',
    'yes',
    '--pidfile',
    join(dir, 'redis.pid'),
    '--logfile',
    join(dir, 'redis.log'),
  ];
  const stopCommand = `redis-cli -p ${port} shutdown nosave`;
  return {
    port,
    stopCommand,
    startCommand: `${daemon.map(quote).join(' ')} && for i in $(seq 50); do redis-cli -p ${port} ping >/dev/null 2>&1 && exit 0; sleep 0.1; done; exit 1`,
    close: async () => {
      spawnSync('sh', ['-c', `${stopCommand} >/dev/null 2>&1`], { timeout: 5000 });
      if (first.exitCode === null) first.kill('SIGKILL');
      await sleep(50);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
