import { defineConfig } from 'vitest/config';

/**
 * Tests that compare latencies of separate real runs, or judge a replay's timing at a server in
 * their own process: any other test running beside them is noise in their figures, so `npm test`
 * runs them last, one file at a time (RPCLOAD_TEST_PHASE=quiet), after the rest
 * (RPCLOAD_TEST_PHASE=load). Without the variable, vitest runs everything, as a developer running
 * one file expects.
 */
const QUIET = ['test/results/compare-false-alarms.test.ts', 'test/results/e2e-compare-merge.test.ts', 'test/cli/replay.test.ts'];
/**
 * Suites whose results must not depend on the load's HTTP client: `npm test` runs them a second
 * time on undici (RPCLOAD_TEST_PHASE=undici), the first pass having run them on the default
 * (rpcload's own clients). Chosen for what a client can get wrong — outcomes of every kind of reply and failure, a
 * target dying mid-run, interim responses, replies that are not HTTP — and kept few, as the CI's
 * time is bounded; other suites that compare the clients do it in one pass (describe.each over
 * HTTP_CLIENTS, e.g. test/driver/connection-set.test.ts).
 */
const BOTH_CLIENTS = [
  'test/driver/outcomes.test.ts',
  'test/driver/run-load.test.ts',
  'test/hostile/target-dies.test.ts',
  'test/hostile/odd-replies.test.ts',
  'test/hostile/interim-responses.test.ts',
];
const phase = process.env.RPCLOAD_TEST_PHASE;

// Tests are mostly I/O-bound (they wait on real rate-limit windows), so run a few files at once
// even on a 2-core machine; timing-sensitive assertions carry their own tolerances.
export default defineConfig({
  test: {
    include: phase === 'quiet' ? QUIET : phase === 'undici' ? BOTH_CLIENTS : ['test/**/*.test.ts'],
    env: phase === 'undici' ? { RPCLOAD_TEST_HTTP_CLIENT: 'undici' } : {},
    exclude: ['test/bench/**', 'node_modules/**', 'dist/**', ...(phase === 'load' ? QUIET : [])],
    fileParallelism: phase !== 'quiet',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: 4,
    reporters: ['default'],
  },
});
