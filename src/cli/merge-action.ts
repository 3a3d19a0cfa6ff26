/** What `rpcload merge` does once its flags are parsed; loaded only when it runs (merge.ts declares the flags). */
import { RpcloadError } from '../errors.ts';
import { mergeFiles } from '../results/merge/merge-files.ts';
import { renderSummaryTable } from '../results/summary-table.ts';
import { colourEnabled } from '../util/terminal-style.ts';
import { sanitizeText } from '../util/sanitize.ts';
import { setExitCode } from './exit.ts';
import { withInterrupt } from './signals.ts';

export interface MergeFlags {
  out: string;
  force?: boolean;
  partial?: boolean;
  runId?: string;
  profile?: string;
  wait?: number;
  json?: boolean;
}

/** `rpcload merge PATHS… --out FILE`: the merged result written, its summary printed, the run's exit code. */
export async function mergeAction(paths: string[], flags: MergeFlags): Promise<void> {
  if (paths.length === 0) throw new RpcloadError('bad_flag', 'merge: expected result files or directories');
  const merged = await withInterrupt((signal) =>
    mergeFiles({
      paths,
      out: flags.out,
      force: flags.force ?? false,
      partial: flags.partial ?? false,
      runId: flags.runId,
      profilePath: flags.profile,
      waitMs: flags.wait,
      signal,
      log: (line) => process.stderr.write(`${line}\n`),
    }),
  );
  const { result } = merged;
  if (flags.json) {
    const { run, summary, byMethod, thresholds, checks, warnings } = result;
    process.stdout.write(
      `${JSON.stringify({ resultFile: flags.out, run, summary, byMethod, thresholds, checks, warnings }, null, 2)}\n`,
    );
  } else {
    const set = result.run.shardSet;
    const what =
      set === undefined ? `${merged.files} files` : `${set.merged.length} of ${set.count} shards of run ${set.runId}`;
    process.stdout.write(
      `${renderSummaryTable(result, { color: colourEnabled(process.stdout) })}\nmerged ${sanitizeText(what)} → ${sanitizeText(flags.out)}\n`,
    );
  }
  setExitCode(merged.exitCode);
}
