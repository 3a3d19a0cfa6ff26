// HTTP/2 against HTTP/1.1 through the same reference server (`serve --tls --http2`, which serves
// HTTP/1.1 to clients that do not offer h2), and HTTP/1.1 with every request signed by the HMAC
// example of docs/profiles.md (the cost of the signing hook): rpcload's closed model, in this
// process, with the server in a worker thread, rotating the variants round by round so that a busy
// machine slows them alike. Prints each round's requests/s and latency, then the medians.
// Run: npx tsx test/bench/http2-throughput.ts [rounds=4] [durationS=5] [vus=64]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServerInWorker } from '../../src/server/worker.ts';
import { codeExampleAfter } from '../support/doc-examples.ts';
import { runPlan, testPlan } from '../support/load-run.ts';

type Variant = '1.1' | '2' | '1.1 signed';
const VARIANTS: readonly Variant[] = ['1.1', '2', '1.1 signed'];
const signDir = mkdtempSync(join(tmpdir(), 'rpcload-h2-bench-'));
const signModule = join(signDir, 'sign.mjs');
writeFileSync(
  signModule,
  codeExampleAfter(fileURLToPath(new URL('../../docs/profiles.md', import.meta.url)), '### Request signing', 'js'),
);

const rounds = Number(process.argv[2] ?? 4);
const durationS = Number(process.argv[3] ?? 5);
const vus = Number(process.argv[4] ?? 64);

const server = await startServerInWorker({ tls: true, http2: true, limit: 1_000_000_000 });
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const figures = Object.fromEntries(
  VARIANTS.map((v) => [
    v,
    { rps: [] as number[], p50: [] as number[], p99: [] as number[], connections: [] as number[] },
  ]),
);
try {
  for (let round = 1; round <= rounds; round++) {
    for (const variant of [...VARIANTS.slice(round % 3), ...VARIANTS.slice(0, round % 3)]) {
      const version = variant === '2' ? '2' : '1.1';
      const plan = testPlan(
        {
          clients: { pattern: 'client-{n}', count: 8, secret: '${SECRET}' },
          ...(variant === '1.1 signed' ? { sign: signModule } : {}),
          http: { version, ca: server.certPem, connections: 64 },
          scenarios: [{ steps: [{ method: 'ping' }] }],
          phases: [{ duration: `${durationS}s`, concurrency: vus }],
          rateLimit: { limit: 1_000_000_000 },
        },
        server.url,
      );
      const { result } = await runPlan(plan, server.url);
      const s = result.summary;
      const f = figures[variant]!;
      f.rps.push(s.rps);
      f.p50.push(s.latencyMs.p50);
      f.p99.push(s.latencyMs.p99);
      f.connections.push(s.connections?.opened ?? 0);
      const errors = s.requests - (s.outcomes.success ?? 0);
      console.log(
        `round ${round}  HTTP/${variant.padEnd(10)}  ${s.rps.toFixed(0).padStart(6)} req/s  p50 ${s.latencyMs.p50.toFixed(2)} ms  p99 ${s.latencyMs.p99.toFixed(2)} ms  ` +
          `connections ${JSON.stringify(s.connections?.byProtocol ?? {})}  errors ${errors}`,
      );
    }
  }
  for (const variant of VARIANTS) {
    const f = figures[variant]!;
    console.log(
      `median HTTP/${variant.padEnd(10)}  ${median(f.rps).toFixed(0)} req/s (range ${Math.min(...f.rps).toFixed(0)}–${Math.max(...f.rps).toFixed(0)})  p50 ${median(f.p50).toFixed(2)} ms  p99 ${median(f.p99).toFixed(2)} ms  connections ${median(f.connections)}`,
    );
  }
} finally {
  await server.close();
  rmSync(signDir, { recursive: true, force: true });
}
