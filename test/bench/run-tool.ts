import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolRequest, ToolRun } from './tool-spec.ts';

/** One RSS sample of a running tool process. */
export interface RssSample {
  /** Seconds since the process was spawned. */
  readonly atS: number;
  readonly rssMb: number;
}

const TOOL_PROCESS = fileURLToPath(new URL('./tool-process.ts', import.meta.url));

function rssMb(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? null : Number(match[1]) / 1024;
  } catch {
    return null; // no /proc (not Linux), or the process has just exited
  }
}

/**
 * Run one tool in its own process (tool-process.ts) and return its report; with `sampleRss`,
 * also the process's RSS read from /proc once a second while it runs.
 */
export async function runTool(
  spec: ToolRequest,
  workDir: string,
  name: string,
  sampleRss = false,
): Promise<{ run: ToolRun; rss: RssSample[] }> {
  const reportPath = join(workDir, `${name}.report.json`);
  const specPath = join(workDir, `${name}.spec.json`);
  writeFileSync(specPath, JSON.stringify({ ...spec, reportPath }));
  const child = spawn(process.execPath, ['--import', 'tsx', TOOL_PROCESS, specPath], { stdio: ['ignore', 'ignore', 'inherit'] });
  const rss: RssSample[] = [];
  const spawnedAt = Date.now();
  const sampler = sampleRss
    ? setInterval(() => {
        const mb = rssMb(child.pid!);
        if (mb !== null) rss.push({ atS: (Date.now() - spawnedAt) / 1000, rssMb: mb });
      }, 1000)
    : null;
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (sampler !== null) clearInterval(sampler);
  if (code !== 0) throw new Error(`${name}: the ${spec.tool} process exited with ${code}`);
  return { run: JSON.parse(readFileSync(reportPath, 'utf8')) as ToolRun, rss };
}
