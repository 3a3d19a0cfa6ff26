/**
 * examples/workloads/orders-flow.json runs as written: against the embedded server, and against
 * a default `rpcload serve` with the demo secret — every flow completes, the one error is the
 * expected `not_found` of the last step, and the example's own thresholds pass. The bundled
 * replay example's `app-…` clients are accepted by that same default server.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { runRpcload } from '../support/cli.ts';
import { startServeProcess } from '../support/serve-process.ts';
import { useTempDir } from '../support/temp-dir.ts';

const dir = useTempDir('rpcload-orders-flow-');
const PROFILE = 'examples/workloads/orders-flow.json';
const REPLAY_PROFILE = 'examples/replay/checkout-profile.json';
const DEMO_SECRET = 'demo-secret';

/** Run a bundled example for `duration` and read its result file. */
async function runExample(
  profile: string,
  name: string,
  extraArgs: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stderr: string; result: RunResult }> {
  const out = join(dir, `${name}.json`);
  const args = ['run', profile, ...extraArgs, '--ui', 'none', '--out', out];
  const run = await runRpcload(args, { env: { RPCLOAD_TARGET: '', ...env } });
  return { code: run.code, stderr: run.stderr, result: JSON.parse(readFileSync(out, 'utf8')) as RunResult };
}

/** The flow's figures: every step answered as the example expects, the thresholds all passed. */
function expectFlowsCompleted(result: RunResult): void {
  const byMethod = Object.entries(result.byMethod).map(([method, stats]) => [method, stats.outcomes] as const);
  const outcomes = Object.fromEntries(byMethod);
  const created = outcomes['orders.create']?.success ?? 0;
  expect(created).toBeGreaterThanOrEqual(3);
  const gone = outcomes['orders.get']?.['error:not_found'] ?? 0;
  expect(gone).toBeGreaterThanOrEqual(1);
  // A flow the run's end cut short may lack its last steps, never an unexpected answer.
  expect(outcomes).toEqual({
    'orders.create': { success: created },
    'orders.get': { success: expect.any(Number) as unknown, 'error:not_found': gone },
    'orders.cancel': { success: expect.any(Number) as unknown },
    'orders.delete': { success: expect.any(Number) as unknown },
  });
  expect(outcomes['orders.get']!.success).toBeGreaterThanOrEqual(2 * gone);
  expect(result.thresholds.map((t) => [t.expr, t.ok])).toEqual([
    ['orders.create:error_rate == 0', true],
    ['orders.cancel:error_rate == 0', true],
    ['orders.delete:error_rate == 0', true],
    ['rate_limited == 0', true],
    ['p99 < 500ms', true],
  ]);
}

describe('the orders-flow example', { timeout: 60_000 }, () => {
  it.concurrent('runs against the embedded server: every answer as expected, thresholds pass', async () => {
    const { code, stderr, result } = await runExample(PROFILE, 'embedded', ['--duration', '2s']);
    expect(code, stderr).toBe(0);
    expect(result.config.target).toBeNull();
    expectFlowsCompleted(result);
  });

  it.concurrent('runs against `rpcload serve` with the demo secret, beside the replay example', async () => {
    const serve = await startServeProcess(['--port', '0']);
    try {
      const [orders, replay] = await Promise.all([
        runExample(PROFILE, 'served', ['--duration', '2s'], { RPCLOAD_TARGET: serve.url, ORDERS_SECRET: DEMO_SECRET }),
        runExample(REPLAY_PROFILE, 'replay', ['--target', serve.url], { SECRET: DEMO_SECRET }), // its app-… clients
      ]);
      expect(orders.code, orders.stderr).toBe(0);
      expectFlowsCompleted(orders.result);
      expect(Object.keys(orders.result.byClient).sort()).toEqual(['ord-1', 'ord-2']);
      expect(replay.code, replay.stderr).toBe(0);
      expect(replay.result.summary.outcomes).toEqual({ success: 60 });
    } finally {
      await serve.stop();
    }
  });
});
