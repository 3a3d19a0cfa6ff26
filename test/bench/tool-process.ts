// The bench's measuring wrapper: `node --import tsx tool-process.ts SPEC`, where SPEC is a JSON
// file (ToolSpec). It runs one tool's command as a separate process, as the tool's users run it,
// and measures that process from outside: its stdout goes to a file, its peak RSS is the last
// VmHWM read from /proc/<pid>/status before it exits, and its CPU time is the growth of this
// wrapper's cutime + cstime (/proc/self/stat: CPU of waited-for children, the exited command
// included) across the command's life. The wrapper's own start-up (tsx) is therefore not charged
// to the tool; the tool's own start-up is, as it is to a user. Linux only (/proc).
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { childrenCpuS, clockTicksPerS } from './child-cpu.ts';
import type { RssSample, ToolRun, ToolSpec } from './tool-spec.ts';

/** How often peak RSS is read: often enough that the last read before exit is the peak. */
const HWM_POLL_MS = 100;

if (process.platform !== 'linux') {
  process.stderr.write(
    `bench: the measuring wrapper reads /proc and runs on Linux only (this is ${process.platform})\n`,
  );
  process.exit(1);
}

/** A `Vm…:  N kB` line of /proc/<pid>/status in MB; null once the process is gone (or a zombie). */
function statusMb(pid: number, field: 'VmHWM' | 'VmRSS'): number | null {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? null : Number(match[1]) / 1024;
  } catch {
    return null;
  }
}

const spec = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as ToolSpec;
const [command, ...args] = spec.argv;
if (command === undefined) throw new Error('tool-process: empty argv');
const ticksPerS = clockTicksPerS();
const stdoutFd = openSync(spec.stdoutPath, 'w');

// The baseline is read after everything this wrapper started itself has been waited for, so the
// difference is the command's CPU alone.
const cpuBefore = childrenCpuS(ticksPerS);
const spawnedMs = performance.now();
const child = spawn(command, args, { stdio: ['ignore', stdoutFd, 'inherit'] });
let peakRssMb = 0;
const rss: RssSample[] = [];
const readPeak = (): void => {
  const mb = statusMb(child.pid!, 'VmHWM');
  if (mb !== null) peakRssMb = Math.max(peakRssMb, mb);
};
const hwmPoll = setInterval(readPeak, HWM_POLL_MS);
const rssPoll = spec.sampleRss
  ? setInterval(() => {
      const mb = statusMb(child.pid!, 'VmRSS');
      if (mb !== null) rss.push({ atS: (performance.now() - spawnedMs) / 1000, rssMb: mb });
    }, 1000)
  : null;
const deadline = setTimeout(() => {
  process.stderr.write(`bench: ${command} did not exit within ${spec.deadlineS} s: killing it\n`);
  child.kill('SIGKILL');
}, spec.deadlineS * 1000);

const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
  child.once('error', reject);
  // 'exit' comes after libuv has waited for the child, so its CPU is in cutime by now.
  child.once('exit', (code, sig) => resolve([code, sig]));
});
const wallS = (performance.now() - spawnedMs) / 1000;
const cpuS = childrenCpuS(ticksPerS) - cpuBefore;
clearInterval(hwmPoll);
if (rssPoll !== null) clearInterval(rssPoll);
clearTimeout(deadline);
closeSync(stdoutFd);

const report: ToolRun = { exitCode, signal, wallS, cpuS, peakRssMb, rss };
writeFileSync(spec.reportPath, JSON.stringify(report));
