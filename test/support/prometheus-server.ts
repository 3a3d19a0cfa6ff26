/**
 * A real Prometheus (Debian's `prometheus`) for end-to-end tests: started on a free port of
 * 127.0.0.1 with its data in a test's temp dir, scraping one target every second; ready when its
 * `/-/ready` answers, stopped with SIGTERM (SIGKILL after 5 s).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './prometheus-text.ts';
import { sleep } from './server-helpers.ts';

export interface PrometheusServer {
  /** Its HTTP API, e.g. http://127.0.0.1:PORT. */
  readonly api: string;
  stop(): Promise<void>;
}

export interface PrometheusOptions {
  /** The prometheus binary (requireProgram's path). */
  readonly program: string;
  /** Where its config, log and data go (removed by the test's temp dir). */
  readonly dir: string;
  /** The port on 127.0.0.1 it scrapes /metrics from. */
  readonly targetPort: number;
  /** Extra flags, e.g. `--enable-feature=exemplar-storage`. */
  readonly flags?: readonly string[];
}

export async function startPrometheus(options: PrometheusOptions): Promise<PrometheusServer> {
  const { dir } = options;
  const port = await freePort();
  const config = join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    [
      'global:',
      '  scrape_interval: 1s',
      '  scrape_timeout: 1s',
      'scrape_configs:',
      '  - job_name: rpcload',
      '    static_configs:',
      `      - targets: ['127.0.0.1:${options.targetPort}']`,
      '',
    ].join('\n'),
  );
  const log = openSync(join(dir, 'prometheus.log'), 'w');
  const child: ChildProcess = spawn(
    options.program,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      ...(options.flags ?? []),
    ],
    { stdio: ['ignore', log, log] },
  );
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(5000)]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  const api = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    const ready = await fetch(`${api}/-/ready`, { signal: AbortSignal.timeout(1000) }).catch(() => null);
    if (ready?.status === 200) return { api, stop };
    await sleep(200);
  }
  await stop();
  throw new Error(
    `prometheus did not become ready within 30 s:\n${readFileSync(join(dir, 'prometheus.log'), 'utf8').slice(-2000)}`,
  );
}
