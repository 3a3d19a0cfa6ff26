import { defineConfig } from 'vitest/config';

// Tests are mostly I/O-bound (they wait on real rate-limit windows), so run a few files at once
// even on a 2-core machine; timing-sensitive assertions carry their own tolerances.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/bench/**', 'node_modules/**', 'dist/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: 3,
    reporters: ['default'],
  },
});
