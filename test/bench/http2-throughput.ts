// HTTP/2 against HTTP/1.1 through the same reference server (`serve --tls --http2`, which serves
// HTTP/1.1 to clients that do not offer h2): rpcload's closed model, in this process, with the
// server in a worker thread, alternating the two protocols round by round so that a busy machine
// slows both alike. Prints each round's requests/s and latency, then the medians.
// Run: npx tsx test/bench/http2-throughput.ts [rounds=4] [durationS=5] [vus=64]
import { startServerInWorker } from '../../src/server/worker.ts';
import { runPlan, testPlan } from '../support/load-run.ts';

const rounds = Number(process.argv[2] ?? 4);
const durationS = Number(process.argv[3] ?? 5);
const vus = Number(process.argv[4] ?? 64);

const server = await startServerInWorker({ tls: true, http2: true, limit: 1_000_000_000 });
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const figures: Record<'1.1' | '2', { rps: number[]; p50: number[]; p99: number[]; connections: number[] }> = {
  '1.1': { rps: [], p50: [], p99: [], connections: [] },
  '2': { rps: [], p50: [], p99: [], connections: [] },
};
try {
  for (let round = 1; round <= rounds; round++) {
    for (const version of round % 2 === 1 ? (['1.1', '2'] as const) : (['2', '1.1'] as const)) {
      const plan = testPlan(
        {
          clients: { pattern: 'client-{n}', count: 8, secret: '${SECRET}' },
          http: { version, ca: server.certPem, connections: 64 },
          scenarios: [{ steps: [{ method: 'ping' }] }],
          phases: [{ duration: `${durationS}s`, concurrency: vus }],
          rateLimit: { limit: 1_000_000_000 },
        },
        server.url,
      );
      const { result } = await runPlan(plan, server.url);
      const s = result.summary;
      const f = figures[version];
      f.rps.push(s.rps);
      f.p50.push(s.latencyMs.p50);
      f.p99.push(s.latencyMs.p99);
      f.connections.push(s.connections?.opened ?? 0);
      const errors = s.requests - (s.outcomes.success ?? 0);
      console.log(
        `round ${round}  HTTP/${version.padEnd(3)}  ${s.rps.toFixed(0).padStart(6)} req/s  p50 ${s.latencyMs.p50.toFixed(2)} ms  p99 ${s.latencyMs.p99.toFixed(2)} ms  ` +
          `connections ${JSON.stringify(s.connections?.byProtocol ?? {})}  errors ${errors}`,
      );
    }
  }
  for (const version of ['1.1', '2'] as const) {
    const f = figures[version];
    console.log(
      `median HTTP/${version.padEnd(3)}  ${median(f.rps).toFixed(0)} req/s (range ${Math.min(...f.rps).toFixed(0)}–${Math.max(...f.rps).toFixed(0)})  p50 ${median(f.p50).toFixed(2)} ms  p99 ${median(f.p99).toFixed(2)} ms  connections ${median(f.connections)}`,
    );
  }
} finally {
  await server.close();
}
