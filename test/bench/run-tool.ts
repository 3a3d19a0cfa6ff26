/**
 * Runs one tool command under the measuring wrapper (tool-process.ts, its own process) and returns
 * what the wrapper measured and what the command printed on stdout.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolRequest, ToolRun, ToolSpec } from './tool-spec.ts';

const TOOL_PROCESS = fileURLToPath(new URL('./tool-process.ts', import.meta.url));
/** Time a tool may take beyond its configured run before it is killed (start-up, drain, write-out). */
const TOOL_MARGIN_S = 60;
/** The deadline of a tool whose run is configured to last `runS` seconds. */
export const deadlineFor = (runS: number): number => runS + TOOL_MARGIN_S;

/** The wrapper's own start-up (tsx) and write-out, on top of the command's deadline. */
const WRAPPER_MARGIN_S = 30;

export interface ToolOutcome {
  readonly run: ToolRun;
  /** The command's stdout. */
  readonly stdout: string;
}

/**
 * Run `request.argv` as its own process under the wrapper; `name` names its files in `workDir`.
 * Throws when the command fails (non-zero exit or a signal), naming the stdout file to read.
 */
export async function runTool(request: ToolRequest, workDir: string, name: string): Promise<ToolOutcome> {
  const spec: ToolSpec = {
    argv: request.argv,
    deadlineS: request.deadlineS,
    sampleRss: request.sampleRss ?? false,
    stdoutPath: join(workDir, `${name}.stdout.txt`),
    reportPath: join(workDir, `${name}.report.json`),
  };
  const specPath = join(workDir, `${name}.spec.json`);
  writeFileSync(specPath, JSON.stringify(spec));
  const wrapper = spawn(process.execPath, ['--import', 'tsx', TOOL_PROCESS, specPath], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const deadline = setTimeout(() => wrapper.kill('SIGKILL'), (request.deadlineS + WRAPPER_MARGIN_S) * 1000);
  const code = await new Promise<number | null>((resolve, reject) => {
    wrapper.once('error', reject);
    wrapper.once('exit', resolve);
  }).finally(() => clearTimeout(deadline));
  if (code !== 0) throw new Error(`${name}: the measuring wrapper exited with ${code}`);
  const run = JSON.parse(readFileSync(spec.reportPath, 'utf8')) as ToolRun;
  const what = `${name}: ${request.argv.join(' ')}`;
  if (run.signal !== null) throw new Error(`${what}: ended by ${run.signal} (stdout in ${spec.stdoutPath})`);
  if (run.exitCode !== 0) throw new Error(`${what}: exited with ${run.exitCode} (stdout in ${spec.stdoutPath})`);
  return { run, stdout: readFileSync(spec.stdoutPath, 'utf8') };
}
