// `npm run bench`: rpcload's start-up (its quick commands, and spawn to first request) beside
// autocannon's; rpcload against a target faster than any Node client (nginx, else a raw-socket
// responder), compared in the closed model with autocannon's CLI, wrk (the ceiling reference) and a
// bare undici dispatch loop (the floor of a client on undici), each run as its users run it, as a
// separate command measured from outside, in rounds of 10 s and of 5 s; scaled with --workers next
// to autocannon -w against a multi-worker nginx; checked for open-model accuracy and for memory
// over a long run. Writes results/bench-<timestamp>.json and prints the tables and a verdict on
// issue 18's, 24's and 35's targets. Durations: BENCH_QUICK=1 for a smoke of everything; see bench-config.ts.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, release, tmpdir, type } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { autocannonVersion } from './autocannon-cli.ts';
import { benchConfig } from './bench-config.ts';
import { benchVerdict, renderBenchReport, type BenchReport } from './bench-report.ts';
import { cpuPressurePercent, loadAverage } from './bench-stats.ts';
import type { BenchTarget } from './bench-target.ts';
import { runClosedSection } from './closed-section.ts';
import { runDataSection } from './data-section.ts';
import { runMemorySection } from './memory-section.ts';
import { runReplaySection } from './replay-section.ts';
import { runStartUpSection } from './start-up-section.ts';
import { startNginx } from './nginx-target.ts';
import { runOpenSection } from './open-section.ts';
import { startRawResponder } from './raw-target.ts';
import { runWorkersSection, type WorkersSection } from './workers-section.ts';
import { findWrk, wrkVersion } from './wrk-cli.ts';

const log = (line: string): void => void process.stderr.write(`bench: ${line}\n`);
const allowInstall = process.env.BENCH_NO_INSTALL === undefined;

async function startTarget(kind: 'auto' | 'nginx' | 'raw'): Promise<BenchTarget> {
  if (kind !== 'raw') {
    const nginx = await startNginx(log, allowInstall);
    if (nginx !== null) return nginx;
    if (kind === 'nginx') throw new Error('BENCH_TARGET=nginx, but nginx is not installed and could not be installed');
    log('nginx is not available (not installed, and not root or no apt-get): falling back to the raw-socket responder');
  }
  return startRawResponder();
}

/**
 * The workers section against its own nginx with a worker per core (BENCH_NGINX_WORKERS), so
 * that the target is not the limit; against the main target when that is not nginx.
 */
async function runWorkersAgainstNginx(
  main: BenchTarget,
  config: ReturnType<typeof benchConfig>,
  workDir: string,
): Promise<WorkersSection> {
  if (main.kind !== 'nginx') {
    log(`workers section: the target is not nginx, so it runs against the ${main.description}, which may be the limit`);
    return runWorkersSection(main, config, workDir, log);
  }
  const nginx = (await startNginx(log, false, config.nginxWorkers))!;
  log(`workers section: target ${nginx.description} at ${nginx.url}`);
  try {
    return await runWorkersSection(nginx, config, workDir, log);
  } finally {
    await nginx.close();
  }
}

const rpcloadVersion = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

if (process.platform !== 'linux') {
  log(`the bench measures each tool's process through /proc and runs on Linux only (this is ${process.platform})`);
  process.exit(1);
}
const config = benchConfig();
const startedAt = new Date();
const loadAverageStart = await loadAverage();
const cpuPressureStartPercent = cpuPressurePercent();
const resultsDir = fileURLToPath(new URL('../../results/', import.meta.url));
mkdirSync(resultsDir, { recursive: true });
const workDir = mkdtempSync(join(tmpdir(), 'rpcload-bench-'));
const target = await startTarget(config.target);
log(`target: ${target.kind} — ${target.description} at ${target.url}`);
log(
  `sections: ${config.sections.join(', ')}${config.quick ? ' (BENCH_QUICK: short smoke durations)' : ''}; load average ${loadAverageStart}`,
);
const has = (section: string): boolean => config.sections.includes(section as never);
const wrk = has('closed') ? findWrk(allowInstall, log) : null;
if (has('closed') && wrk === null)
  log('wrk is not installed (and not root or no apt-get): the closed section runs without the ceiling reference');
const tools = { rpcload: rpcloadVersion, autocannon: autocannonVersion(), wrk: wrk === null ? null : wrkVersion(wrk) };
log(`tools: rpcload ${tools.rpcload}, autocannon ${tools.autocannon}, ${tools.wrk ?? 'no wrk'}`);
try {
  const startUp = has('startup') ? await runStartUpSection(config, workDir, log) : null;
  const closed = has('closed') ? await runClosedSection(target, config, wrk, workDir, log) : null;
  const closedShort =
    has('closed') && config.closedShortDurationS !== null
      ? await runClosedSection(target, { ...config, closedDurationS: config.closedShortDurationS }, wrk, workDir, log)
      : null;
  const workers = has('workers') ? await runWorkersAgainstNginx(target, config, workDir) : null;
  const open = has('open')
    ? await runOpenSection(target, config, workDir, log, closed?.median.rpcload.requestsPerS ?? null)
    : null;
  const memory = has('memory') ? await runMemorySection(target, config, workDir, log) : null;
  const data = has('data') ? await runDataSection(target, config, workDir, log) : null;
  const replay = has('replay') ? await runReplaySection(target, config, workDir, log) : null;
  const report: BenchReport = {
    schema: 'rpcload/bench@4',
    startedAt: startedAt.toISOString(),
    endedAt: new Date().toISOString(),
    machine: {
      cores: availableParallelism(),
      cpu: cpus()[0]?.model ?? 'unknown',
      node: process.version,
      os: `${type()} ${release()}`,
      loadAverageStart,
      loadAverageEnd: await loadAverage(),
      cpuPressureStartPercent,
      cpuPressureEndPercent: cpuPressurePercent(),
    },
    target: { kind: target.kind, description: target.description },
    tools,
    config,
    startUp,
    closed,
    closedShort,
    workers,
    open,
    memory,
    data,
    replay,
    verdict: benchVerdict({ startUp, closed, closedShort, workers, open }),
  };
  const path = join(resultsDir, `bench-${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`${renderBenchReport(report)}\n\nwritten: ${path}\n`);
} finally {
  await target.close();
  rmSync(workDir, { recursive: true, force: true });
}
