/** `rpcload merge A B … --out F`: one result file from the shards of one run. */
import { basename } from 'node:path';
import type { Command } from 'commander';
import { ExitCode, RpcloadError } from '../errors.ts';
import { formatMs } from '../results/compare/format.ts';
import { readResultFile } from '../results/read-result.ts';
import { writeResultFile } from '../session/result/result-file.ts';
import { mergeRuns } from '../results/merge/merge-runs.ts';
import { sanitizeText } from '../util/sanitize.ts';
import { setExitCode } from './exit.ts';

export function registerMergeCommand(program: Command): void {
  program
    .command('merge')
    .description('merge the result files of shards of one run (same profile, different clients, run at the same time) into one')
    .argument('<files...>', 'two or more result files')
    .usage('<files...> --out <file> [options]')
    .requiredOption('--out <file>', 'where to write the merged result file (required)')
    .option('--force', 'merge even when the files have different profiles or load shapes')
    .action(async (files: string[], flags: { out: string; force?: boolean }) => {
      if (files.length < 2) throw new RpcloadError('bad_flag', `merge: expected at least two result files, found ${files.length}`);
      const results = await Promise.all(files.map((file) => readResultFile(file)));
      // Evidence is keyed by shard: the file name, or the path when two files share a name.
      const names = files.map((file) => basename(file));
      const labels = names.map((name, i) => (names.indexOf(name) === names.lastIndexOf(name) ? name : files[i]!));
      const merged = mergeRuns(
        results.map((result, i) => ({ label: labels[i]!, result })),
        { force: flags.force ?? false },
      );
      await writeResultFile(flags.out, merged);
      const { requests, rps, latencyMs } = merged.summary;
      process.stdout.write(
        `merged ${files.length} files (${merged.run.shards} shards, status ${merged.run.status}): ${requests} requests, ${rps.toFixed(1)}/s, ` +
          `p50 ${formatMs(latencyMs.p50)} ms, p99 ${formatMs(latencyMs.p99)} ms → ${flags.out}\n`,
      );
      for (const warning of merged.warnings) process.stderr.write(`warning: ${sanitizeText(warning, 300)}\n`);
      // Thresholds were evaluated again on the totals, which no single shard could do.
      const failed = [
        ...merged.thresholds.filter((t) => !t.ok).map((t) => `threshold ${t.expr}`),
        ...merged.checks.filter((c) => c.verdict === 'fail').map((c) => `check ${c.id}`),
      ];
      for (const what of failed) process.stdout.write(`failed: ${sanitizeText(what)}\n`);
      setExitCode(failed.length > 0 ? ExitCode.failed : ExitCode.ok);
    });
}
