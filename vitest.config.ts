import { readdirSync, readFileSync } from 'node:fs';
import { relative, sep } from 'node:path';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Which test files run in which pass of `npm test` is said in each file, by a marker comment in
 * its first lines, so a renamed or moved file keeps its pass:
 * - `// test-pass: quiet` — tests that compare latencies of separate real runs, or judge a replay's
 *   timing at a server in their own process: any other test beside them is noise in their
 *   figures, so they run last, one file at a time (RPCLOAD_TEST_PHASE=quiet), after the rest
 *   (RPCLOAD_TEST_PHASE=load).
 * - `// test-pass: both-clients` — suites whose results must not depend on the load's HTTP client:
 *   run a second time on undici (RPCLOAD_TEST_PHASE=undici), the first pass having run them on
 *   the default one. Chosen for what a client can get wrong (outcomes of every kind of reply and
 *   failure, a target dying mid-run, interim responses, replies that are not HTTP) and kept few,
 *   as the CI's time is bounded.
 * Without RPCLOAD_TEST_PHASE vitest runs everything, as a developer running one file expects.
 */
const PASS_MARKER = /^\/\/ test-pass: (\S+)\s*$/m;
const PASSES = ['quiet', 'both-clients'] as const;

function filesMarked(): Record<(typeof PASSES)[number], string[]> {
  const marked: Record<string, string[]> = { quiet: [], 'both-clients': [] };
  const files = readdirSync('test', { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.test.ts'));
  for (const file of files.sort()) {
    const path = `test/${file.split(sep).join('/')}`;
    const head = readFileSync(path, 'utf8').slice(0, 2_000);
    const pass = PASS_MARKER.exec(head)?.[1];
    if (pass === undefined) continue;
    // A misspelt marker would silently leave its file in the load pass: refuse it.
    if (!(pass in marked)) throw new Error(`${path}: unknown test pass "${pass}" (known: ${PASSES.join(', ')})`);
    marked[pass]!.push(path);
  }
  for (const pass of PASSES)
    if (marked[pass]!.length === 0) throw new Error(`no test file is marked "// test-pass: ${pass}"`);
  return marked;
}

const { quiet: QUIET, 'both-clients': BOTH_CLIENTS } = filesMarked();
const phase = process.env.RPCLOAD_TEST_PHASE;
const UNDICI = { RPCLOAD_TEST_HTTP_CLIENT: 'undici' };
const NOT_TESTS = ['test/bench/**', 'node_modules/**', 'dist/**'];
const TIMEOUT_MS = 30_000;

/** How many test files run at once in the load pass: RPCLOAD_TEST_WORKERS, else six (below). */
function testWorkers(): number {
  const text = process.env.RPCLOAD_TEST_WORKERS;
  if (text === undefined || text === '') return 6;
  const count = Number(text);
  if (!Number.isInteger(count) || count < 1)
    throw new Error(`RPCLOAD_TEST_WORKERS: expected a whole number ≥ 1, found "${text}"`);
  return count;
}

/**
 * The passes of `npm test`: `load` runs every file but the quiet ones on the default client and,
 * as a second project in the same pool, the both-clients files on undici (their waits fill the
 * other files' idle time); `quiet` runs the quiet files one at a time after it. `undici` alone
 * remains for a maintainer who wants only that pass.
 */
function projects(): TestProjectInlineConfiguration[] | undefined {
  if (phase !== 'load') return undefined;
  // Not `extends: true`: it would add the root's include list to each project's.
  const common = { testTimeout: TIMEOUT_MS, hookTimeout: TIMEOUT_MS, isolate: false, exclude: NOT_TESTS };
  return [
    { test: { ...common, name: 'default', include: ['test/**/*.test.ts'], exclude: [...NOT_TESTS, ...QUIET] } },
    { test: { ...common, name: 'undici', include: BOTH_CLIENTS, env: UNDICI } },
  ];
}

/** Seconds each test file took in a recent load pass (scripts/test-durations.js writes it). */
const RECORDED_DURATIONS = JSON.parse(readFileSync('test/durations.json', 'utf8')) as Record<string, number>;

/**
 * The longest files first — by vitest's own record of the last run where it has one, else by
 * test/durations.json (a fresh clone, CI), else by size as vitest does; failed files first — and
 * the undici project's files before the default project's, not after: they are few, long and
 * mostly waiting on real time. On a fresh clone vitest ordered files by size alone, and small files
 * that run for tens of seconds (verify/fewer-clients, 24 s) started near the end of the pass and
 * ran there alone; the undici project's files came after all the others. (Ordering both projects'
 * files together instead made each worker load both projects' modules in turn: +36 s of imports.)
 */
class LongestFirst extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const weight = new Map<TestSpecification, { failed: boolean; ms: number; size: number }>();
    for (const spec of files) {
      const path = relative(config.root, spec.moduleId).split(sep).join('/');
      const last = cache.getFileTestResults(`${spec.project.name}:${path}`);
      const recordedS = RECORDED_DURATIONS[path];
      weight.set(spec, {
        failed: last?.failed ?? false,
        ms: last?.duration ?? (recordedS === undefined ? 0 : recordedS * 1000),
        size: cache.getFileStats(`${spec.project.name}:${path}`)?.size ?? 0,
      });
    }
    const projectRank = (spec: TestSpecification): number => (spec.project.name === 'undici' ? 0 : 1);
    return Promise.resolve(
      [...files].sort((a, b) => {
        const wa = weight.get(a)!;
        const wb = weight.get(b)!;
        return (
          projectRank(a) - projectRank(b) || Number(wb.failed) - Number(wa.failed) || wb.ms - wa.ms || wb.size - wa.size
        );
      }),
    );
  }
}

// Tests mostly wait on real time (rate-limit windows, run durations), so several files run at once
// even on a 2-core machine; timing-sensitive assertions carry their own tolerances. Files share
// their worker's module cache (isolate: false): a test file loads rpcload's sources once per
// worker, not once per file — about a quarter of the suite's CPU time. No test mocks modules or
// timers, and module state is per thread by design (the warm-up's "warmed" flag, the HTTP/1
// connections' sweep), which a later file in the same worker may find set, as a later run in the
// same process would.
export default defineConfig({
  test: {
    include: phase === 'quiet' ? QUIET : phase === 'undici' ? BOTH_CLIENTS : ['test/**/*.test.ts'],
    env: phase === 'undici' ? UNDICI : {},
    exclude: NOT_TESTS,
    projects: projects(),
    fileParallelism: phase !== 'quiet',
    // The quiet files judge timing: each in a fresh process, not one whose heap the file before it grew.
    isolate: phase !== 'quiet',
    testTimeout: TIMEOUT_MS,
    hookTimeout: TIMEOUT_MS,
    pool: 'forks',
    // Six on this 2-core VM (29 November 2026; RPCLOAD_TEST_WORKERS=N for another count): the
    // tests mostly wait on real time. A load pass took 333 s with four workers, busy 0.9 cores, and
    // 236–242 s with six, busy 1.36 cores, every test passing — also with lint beside it (245 s) and
    // with one (264 s) or two (283 s) other processes spinning on a core throughout. (An older,
    // slower VM of the same size was busy 1.47 cores with four; there five failed six files beside
    // lint, on a starved generator.)
    maxWorkers: testWorkers(),
    sequence: { sequencer: LongestFirst },
    reporters: ['default'],
  },
});
