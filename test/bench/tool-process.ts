// One tool run in its own process, measured from inside: `node --import tsx tool-process.ts SPEC`
// where SPEC is a JSON file (ToolSpec). Writes a ToolRun JSON to spec.reportPath. CPU time and
// peak RSS cover this process only (worker threads included), from just before the tool starts
// to just after it returns, so the loader's start-up is not charged to either tool.
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type * as RunCliModule from '../../src/cli/program.ts';
import type { ToolRun, ToolSpec } from './tool-spec.ts';

/** The parts of autocannon's programmatic API used here (it ships no types). */
interface AutocannonResult {
  readonly requests: { readonly total: number };
  readonly duration: number;
  readonly latency: { readonly p50: number; readonly p99: number };
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;

const spec = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as ToolSpec;

// Loaded before the clock starts: module loading is not the tool's work. rpcload runs from the
// built dist/ (`npm run bench` builds first), as users run it: from source, every worker thread it
// starts would compile TypeScript through tsx on the measured clock.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
const { runCli } = (await import(new URL('../../dist/cli/run-cli.js', import.meta.url).href)) as typeof RunCliModule;

async function runTool(): Promise<ToolRun['tool']> {
  if (spec.tool === 'autocannon') {
    const result = await autocannon({
      url: spec.url,
      method: 'POST',
      headers: spec.headers,
      body: spec.body,
      connections: spec.connections,
      duration: spec.durationS,
    });
    return {
      kind: 'autocannon',
      requests: result.requests.total,
      durationS: result.duration,
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      failures: result.non2xx + result.errors + result.timeouts,
    };
  }
  const exitCode = await runCli(['run', spec.profilePath, '--ui', 'none', '--out', spec.resultPath, ...spec.args]);
  return { kind: 'rpcload', exitCode, resultPath: spec.resultPath };
}

// rpcload prints its summary table; the parent only needs the report file.
const cpuBefore = process.cpuUsage();
const startedMs = performance.now();
const tool = await runTool();
const cpu = process.cpuUsage(cpuBefore);
const report: ToolRun = {
  tool,
  wallS: (performance.now() - startedMs) / 1000,
  cpuS: (cpu.user + cpu.system) / 1e6,
  peakRssMb: process.resourceUsage().maxRSS / 1024,
};
writeFileSync(spec.reportPath, JSON.stringify(report));
process.exit(0);
