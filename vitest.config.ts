import { defineConfig } from 'vitest/config';

/**
 * Tests that compare latencies of separate real runs: any other test running beside them is noise
 * in their figures, so `npm test` runs them last, one file at a time (RPCLOAD_TEST_PHASE=quiet),
 * after the rest (RPCLOAD_TEST_PHASE=load). Without the variable, vitest runs everything, as a
 * developer running one file expects.
 */
const QUIET = ['test/results/compare-false-alarms.test.ts', 'test/results/e2e-compare-merge.test.ts'];
const phase = process.env.RPCLOAD_TEST_PHASE;

// Tests are mostly I/O-bound (they wait on real rate-limit windows), so run a few files at once
// even on a 2-core machine; timing-sensitive assertions carry their own tolerances.
export default defineConfig({
  test: {
    include: phase === 'quiet' ? QUIET : ['test/**/*.test.ts'],
    exclude: ['test/bench/**', 'node_modules/**', 'dist/**', ...(phase === 'load' ? QUIET : [])],
    fileParallelism: phase !== 'quiet',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: 3,
    reporters: ['default'],
  },
});
