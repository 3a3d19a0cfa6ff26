/**
 * A real Prometheus (Debian's `prometheus`, installed by .ci/run) scrapes a real `rpcload run` of
 * the demo profile every second; its HTTP API then reports the run's total requests exactly as
 * the result file counts them (the endpoint lingers after the result is written, so the last
 * scrapes see the final figures), a non-zero 429 counter (the demo's greedy client), and accepts
 * every PromQL expression of the shipped Grafana dashboard. Skipped when `prometheus` is not on
 * the PATH (failed instead under CI=true; see support/system-program.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { outcomeClass } from '../../src/api/outcome.ts';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { runRpcload } from '../support/cli.ts';
import { freePort } from '../support/prometheus-text.ts';
import { sleep } from '../support/server-helpers.ts';
import { startPrometheus as startPrometheusServer, type PrometheusServer } from '../support/prometheus-server.ts';
import { requireProgram } from '../support/system-program.ts';
import { useTempDir } from '../support/temp-dir.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const prometheusProgram = requireProgram('prometheus', { package: 'prometheus' });
const dir = useTempDir('rpcload-prometheus-');
let prometheus: PrometheusServer | undefined;

afterAll(async () => {
  await prometheus?.stop();
});

async function startPrometheus(targetPort: number): Promise<string> {
  prometheus = await startPrometheusServer({ program: prometheusProgram.path!, dir, targetPort });
  return prometheus.api;
}

interface QueryAnswer {
  readonly status: string;
  readonly error?: string;
  readonly data?: { readonly result: readonly { readonly value: [number, string] }[] };
}

async function query(api: string, expr: string): Promise<QueryAnswer> {
  const response = await fetch(`${api}/api/v1/query?query=${encodeURIComponent(expr)}`, {
    signal: AbortSignal.timeout(5000),
  });
  return (await response.json()) as QueryAnswer;
}

/** The single value of an instant query; null when the answer is empty. */
async function scalar(api: string, expr: string): Promise<number | null> {
  const answer = await query(api, expr);
  expect(answer.status, `${expr}: ${answer.error ?? ''}`).toBe('success');
  const first = answer.data!.result[0];
  return first === undefined ? null : Number(first.value[1]);
}

/** The dashboard's queries with Grafana's variables replaced as Grafana would. */
function dashboardExpressions(): string[] {
  const dashboard = JSON.parse(readFileSync(join(ROOT, 'docs/grafana/rpcload.json'), 'utf8')) as {
    panels: { targets?: { expr: string }[] }[];
  };
  return dashboard.panels
    .flatMap((p) => p.targets ?? [])
    .map((t) => t.expr.replaceAll('$__rate_interval', '1m').replace(/\$(run_id|profile|shard)\b/g, '.*'));
}

describe.skipIf(prometheusProgram.path === null)(
  `a real Prometheus scraping a real run${prometheusProgram.skipNote}`,
  { timeout: 90_000 },
  () => {
    it('sees the result file’s request count, the 429s of the greedy client, and answers every dashboard query', async () => {
      const metricsPort = await freePort();
      const api = await startPrometheus(metricsPort);
      const out = join(dir, 'demo.json');
      const run = await runRpcload(
        [
          'run',
          join(ROOT, 'profiles/demo.json'),
          '--duration',
          '10s',
          '--ui',
          'none',
          '--out',
          out,
          '--metrics-listen',
          `127.0.0.1:${metricsPort}`,
          '--metrics-linger',
          '3s',
        ],
        { timeoutMs: 60_000 },
      );
      expect(run.code, run.stderr).not.toBe(2);
      const result = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
      expect(result.summary.requests).toBeGreaterThan(100);
      // The endpoint is closed now, so its series are stale: read each counter's highest value instead.
      const total = 'sum(max_over_time(rpcload_requests_total[5m]))';
      let seen: number | null = null;
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        seen = await scalar(api, total);
        if (seen === result.summary.requests) break;
        await sleep(500);
      }
      expect(seen).toBe(result.summary.requests);
      const limited = await scalar(api, 'sum(max_over_time(rpcload_rate_limited_total[5m]))');
      expect(limited).toBeGreaterThan(0);
      const refused = Object.entries(result.summary.outcomes).reduce(
        (n, [k, v]) => n + (outcomeClass(k) === 'rate_limited' ? v : 0),
        0,
      );
      expect(limited).toBe(refused);
      // The greedy client is client-1 (weight 10): the 429s are its.
      expect(
        Object.entries(result.rateLimit!.clients)
          .filter(([, c]) => c.refused > 0)
          .map(([id]) => id),
      ).toEqual(['client-1']);
      for (const expr of dashboardExpressions()) {
        const answer = await query(api, expr.replaceAll('[1m]', '[5m]'));
        expect(answer.status, `${expr}: ${answer.error ?? ''}`).toBe('success');
      }
    });
  },
);
