// `npm run bench`: rpcload against a target faster than any Node client (nginx, else a raw-socket
// responder), compared with autocannon in the closed model, scaled with --workers, checked for
// open-model accuracy and for memory over a long run. Writes results/bench-<timestamp>.json and
// prints the tables. Durations: BENCH_QUICK=1 for a smoke of everything; see bench-config.ts.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, release, tmpdir, type } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchConfig } from './bench-config.ts';
import { renderBenchReport, type BenchReport } from './bench-report.ts';
import { cpuPressurePercent, loadAverage } from './bench-stats.ts';
import type { BenchTarget } from './bench-target.ts';
import { runClosedSection } from './closed-section.ts';
import { runMemorySection } from './memory-section.ts';
import { startNginx } from './nginx-target.ts';
import { runOpenSection } from './open-section.ts';
import { startRawResponder } from './raw-target.ts';
import { runWorkersSection } from './workers-section.ts';

const log = (line: string): void => void process.stderr.write(`bench: ${line}\n`);

async function startTarget(kind: 'auto' | 'nginx' | 'raw'): Promise<BenchTarget> {
  if (kind !== 'raw') {
    const nginx = await startNginx(log, process.env.BENCH_NO_INSTALL === undefined);
    if (nginx !== null) return nginx;
    if (kind === 'nginx') throw new Error('BENCH_TARGET=nginx, but nginx is not installed and could not be installed');
    log('nginx is not available (not installed, and not root or no apt-get): falling back to the raw-socket responder');
  }
  return startRawResponder();
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
try {
  const has = (section: string): boolean => config.sections.includes(section as never);
  const closed = has('closed') ? await runClosedSection(target, config, workDir, log) : null;
  const workers = has('workers') ? await runWorkersSection(target, config, workDir, log) : null;
  const open = has('open') ? await runOpenSection(target, config, workDir, log) : null;
  const memory = has('memory') ? await runMemorySection(target, config, workDir, log) : null;
  const report: BenchReport = {
    schema: 'rpcload/bench@1',
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
    config,
    closed,
    workers,
    open,
    memory,
  };
  const path = join(resultsDir, `bench-${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`${renderBenchReport(report)}\n\nwritten: ${path}\n`);
} finally {
  await target.close();
  rmSync(workDir, { recursive: true, force: true });
}
