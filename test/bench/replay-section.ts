/**
 * The replay section: a recording of BENCH_REPLAY_GB (default 5 GB) written to the work directory,
 * then `rpcload run --replay` of its last BENCH_REPLAY_WINDOW_S seconds at speed 2 (its 1,000
 * calls/s sent at 2,000 calls/s, the rate whose schedule lag p99 the issue bounds at 2 ms), RSS
 * read once a second from outside. The run scans the whole file before the load (checking and hashing every record)
 * and streams it again during the load (skipping to the window), so both passes read every byte:
 * RSS must stay bounded by the read-ahead, not grow with the file.
 */
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import type { BenchTarget } from './bench-target.ts';
import type { BenchConfig } from './bench-config.ts';
import { readRunResult, round } from './bench-stats.ts';
import { deadlineFor, runTool } from './run-tool.ts';
import { RPCLOAD_BIN } from '../support/cli.ts';

export interface ReplayResult {
  readonly recordingBytes: number;
  readonly recordedCalls: number;
  readonly windowS: number;
  readonly sent: number;
  /** Calls per second sent (the recording's rate × the speed); absent in reports written before the speed was set. */
  readonly ratePerS?: number;
  /** Seconds from the command's start to its end (the scan of the whole file included). */
  readonly wallS: number;
  readonly peakRssMb: number;
  readonly scheduleLagP99Ms: number | null;
}

/** One recorded call a millisecond, 100 callers, a padded body so lines are ~200 bytes. */
const RECORDED_PER_S = 1000;
/** Replayed twice as fast: 2,000 calls/s. */
const SPEED = 2;
/** The bound on the replay's schedule lag p99 at that rate (one thread). */
export const REPLAY_LAG_TARGET_MS = 2;
const CALLERS = 100;
const PAD = 'x'.repeat(120);

/** Write the recording, streaming (the writer waits for the disk, so the bench's own memory stays flat). */
async function writeRecording(path: string, bytes: number): Promise<number> {
  const out = createWriteStream(path);
  let written = 0;
  let calls = 0;
  while (written < bytes) {
    const lines: string[] = [];
    for (let i = 0; i < 1000; i++, calls++)
      lines.push(
        JSON.stringify({
          t: calls,
          client: `bench-${(calls % CALLERS) + 1}`,
          method: 'ping',
          args: { seq: calls, pad: PAD },
        }),
      );
    const chunk = `${lines.join('\n')}\n`;
    written += Buffer.byteLength(chunk);
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return calls;
}

export async function runReplaySection(
  target: BenchTarget,
  config: BenchConfig,
  workDir: string,
  log: (line: string) => void,
): Promise<ReplayResult> {
  const recording = join(workDir, 'recording.jsonl');
  const bytes = Math.round(config.replayGb * 1024 ** 3);
  log(`replay: writing a ${config.replayGb} GB recording to ${recording}`);
  const calls = await writeRecording(recording, bytes);
  const recordedS = calls / RECORDED_PER_S;
  const windowS = Math.min(config.replayWindowS, recordedS);
  const resultPath = join(workDir, 'replay.result.json');
  const argv = [
    process.execPath,
    RPCLOAD_BIN,
    'run',
    '--target',
    target.url,
    '--client-pattern',
    'bench-{n}:bench-secret',
    '--clients',
    String(CALLERS),
    '--replay',
    recording,
    '--from',
    `${Math.floor((recordedS - windowS) * 1000)}ms`,
    '--speed',
    String(SPEED),
    '--ui',
    'none',
    '--out',
    resultPath,
  ];
  log(
    `replay: ${calls} recorded calls (${round(recordedS, 0)} s); replaying the last ${windowS} s at ${RECORDED_PER_S * SPEED} calls/s`,
  );
  const started = Date.now();
  // The scan reads the whole file first: a few seconds per GB on a quick disk.
  const { run } = await runTool(
    { argv, deadlineS: deadlineFor(windowS + 60 * config.replayGb), sampleRss: true },
    workDir,
    'replay',
  );
  const result = readRunResult(resultPath) as unknown as {
    replay?: { sent: number };
    summary: { scheduleLagMs: { p99: number } | null };
  };
  const peakRssMb = round(Math.max(0, ...run.rss.map((sample) => sample.rssMb)), 1);
  return {
    recordingBytes: bytes,
    recordedCalls: calls,
    windowS,
    sent: result.replay?.sent ?? 0,
    ratePerS: RECORDED_PER_S * SPEED,
    wallS: round((Date.now() - started) / 1000, 1),
    peakRssMb,
    scheduleLagP99Ms: result.summary.scheduleLagMs?.p99 ?? null,
  };
}
