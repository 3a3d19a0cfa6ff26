/**
 * A real Prometheus with exemplar storage (`--enable-feature=exemplar-storage`) scrapes a real
 * `rpcload run` — it asks for OpenMetrics by default — against a server that records every
 * traceparent; its `/api/v1/query_exemplars` then returns exemplars of rpcload's latency histogram
 * whose trace and span ids are requests that server saw. Skipped when `prometheus` is not on the
 * PATH (failed instead under CI=true; see support/system-program.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runRpcload } from '../support/cli.ts';
import { startTracedServer, type TracedServer } from '../support/openmetrics-exemplars.ts';
import { startPrometheus, type PrometheusServer } from '../support/prometheus-server.ts';
import { freePort } from '../support/prometheus-text.ts';
import { sleep } from '../support/server-helpers.ts';
import { requireProgram } from '../support/system-program.ts';
import { useTempDir } from '../support/temp-dir.ts';

const prometheusProgram = requireProgram('prometheus', { package: 'prometheus' });
const dir = useTempDir('rpcload-prometheus-exemplars-');
let prometheus: PrometheusServer | undefined;
let traced: TracedServer | undefined;

afterAll(async () => {
  await prometheus?.stop();
  await traced?.server.close();
});

interface ExemplarsAnswer {
  readonly status: string;
  readonly error?: string;
  readonly data?: readonly {
    readonly seriesLabels: Readonly<Record<string, string>>;
    readonly exemplars: readonly {
      readonly labels: Readonly<Record<string, string>>;
      readonly value: string;
      readonly timestamp: number;
    }[];
  }[];
}

describe.skipIf(prometheusProgram.path === null)(
  `a real Prometheus storing the exemplars of a real run${prometheusProgram.skipNote}`,
  { timeout: 90_000 },
  () => {
    it("returns rpcload's trace ids from /api/v1/query_exemplars", async () => {
      traced = await startTracedServer();
      const metricsPort = await freePort();
      prometheus = await startPrometheus({
        program: prometheusProgram.path!,
        dir,
        targetPort: metricsPort,
        flags: ['--enable-feature=exemplar-storage'],
      });
      const profile = join(dir, 'profile.json');
      writeFileSync(
        profile,
        JSON.stringify({
          name: 'exemplars-e2e',
          target: traced.server.url,
          clients: { pattern: 'client-{n}', count: 2, secret: 'demo-secret' },
          scenarios: [{ name: 'slow', steps: [{ method: 'slow' }] }],
          phases: [{ name: 'steady', duration: '3s', rate: 30 }],
        }),
      );
      const startS = Date.now() / 1000 - 60;
      const run = await runRpcload(
        [
          'run',
          profile,
          '--ui',
          'none',
          '--out',
          join(dir, 'run.json'),
          '--metrics-listen',
          `127.0.0.1:${metricsPort}`,
          // Its final figures stay up for five scrapes: under a busy CI a scrape can time out (1 s)
          // while the run goes, and CI saw a 2 s linger end with no exemplar stored.
          '--metrics-linger',
          '5s',
        ],
        { timeoutMs: 60_000 },
      );
      expect(run.code, run.stderr).toBe(0);
      const seen = new Set(
        traced.server.seen
          .filter((r) => !r.url.endsWith('/auth.token'))
          .map((r) => String(r.headers.traceparent).slice(3, 52)),
      );
      const query = `${prometheus.api}/api/v1/query_exemplars?query=${encodeURIComponent('rpcload_request_latency_seconds_bucket')}&start=${startS}&end=${Date.now() / 1000 + 60}`;
      let answer: ExemplarsAnswer | null = null;
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        answer = (await (await fetch(query, { signal: AbortSignal.timeout(5000) })).json()) as ExemplarsAnswer;
        if ((answer.data ?? []).some((s) => s.exemplars.length > 0)) break;
        await sleep(500);
      }
      expect(answer?.status, answer?.error).toBe('success');
      const exemplars = answer!.data!.flatMap((s) => s.exemplars.map((e) => ({ series: s.seriesLabels, ...e })));
      // When none came, what Prometheus says of its scrapes (health, last error) tells why.
      const targets = exemplars.length > 0 ? '' : await (await fetch(`${prometheus.api}/api/v1/targets`)).text();
      expect(exemplars.length, `no exemplar stored; Prometheus's targets: ${targets.slice(0, 1500)}`).toBeGreaterThan(
        0,
      );
      for (const e of exemplars) {
        expect(e.series).toMatchObject({
          __name__: 'rpcload_request_latency_seconds_bucket',
          method: 'slow',
          profile: 'exemplars-e2e',
        });
        expect(seen.has(`${e.labels.trace_id}-${e.labels.span_id}`), `${e.labels.trace_id} was sent`).toBe(true);
        const le = e.series.le === '+Inf' ? Infinity : Number(e.series.le);
        expect(Number(e.value)).toBeLessThanOrEqual(le);
      }
    });
  },
);
