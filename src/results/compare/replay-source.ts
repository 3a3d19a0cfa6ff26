/**
 * Do two result files replay the same recording? A replay's figures depend on what it played:
 * two replays of different recordings (or different windows of one), or a replay against a
 * synthetic run, differ for reasons other than the server. `compare` refuses to judge them unless
 * told (`--allow-different-sources`); the speed is load shape (load-shape.ts), not source.
 */
import type { ReplaySource } from '../../contract/replay-source-schema.ts';
import type { RunResult } from '../../contract/result-schema.ts';
import { RpcloadError } from '../../errors.ts';
import { sanitizeText } from '../../util/sanitize.ts';

/** The recording a file replayed, in words: "peak.jsonl (sha256 1f2e3d4c…, window 0–60000 ms)", or "no recording". */
function describeSource(source: ReplaySource | undefined): string {
  if (source === undefined) return 'no recording (synthetic load)';
  const window = `${source.window.fromMs}–${source.window.toMs ?? 'end'} ms`;
  return `${sanitizeText(source.file, 60)} (sha256 ${source.sha256.slice(0, 12)}…, window ${window})`;
}

/** Why two files' sources differ, or null when they replay the same window of the same bytes (or neither replays). */
export function replaySourceDifference(a: RunResult, b: RunResult): string | null {
  const [x, y] = [a.replay, b.replay];
  if (x === undefined && y === undefined) return null;
  const same =
    x !== undefined &&
    y !== undefined &&
    x.sha256 === y.sha256 &&
    x.window.fromMs === y.window.fromMs &&
    x.window.toMs === y.window.toMs &&
    x.maxCalls === y.maxCalls;
  return same ? null : `${describeSource(x)} vs ${describeSource(y)}`;
}

/** Refuse (exit 2) two files whose replay sources differ, unless `allow`; returns the difference let through, if any. */
export function assertSameSource(base: { label: string; result: RunResult }, head: { label: string; result: RunResult }, allow: boolean): string | null {
  const difference = replaySourceDifference(base.result, head.result);
  if (difference !== null && !allow)
    throw new RpcloadError(
      'incomparable',
      `cannot compare ${base.label} and ${head.label}: they replay different sources (${difference}); use --allow-different-sources to compare anyway`,
    );
  return difference;
}
