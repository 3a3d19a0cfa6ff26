/**
 * The files of a trend: result files named on the command line (each must be valid, else exit 2)
 * and every `*.json` result file of a named directory (others there are skipped and counted).
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { RpcloadError } from '../../errors.ts';
import type { RunResult } from '../../contract/result-schema.ts';
import { assertCompleted, readResultFile } from '../../result-file/read-result.ts';
import { trendPoint, type TrendPoint } from './trend-series.ts';

export interface TrendInput {
  readonly points: readonly TrendPoint[];
  /** Files in directories that were not result files. */
  readonly skipped: readonly string[];
}

/**
 * A run that did not complete (a crashed run's `running` checkpoint, an interrupted or failed run)
 * is refused, in a directory too — the latest run of a nightly series is the one that matters —
 * unless `allowIncomplete`.
 */
export async function readTrendInput(paths: readonly string[], allowIncomplete = false): Promise<TrendInput> {
  const points: TrendPoint[] = [];
  const skipped: string[] = [];
  const add = (file: string, result: RunResult): void => {
    assertCompleted(file, result, allowIncomplete);
    points.push(trendPoint(file, result));
  };
  for (const path of paths) {
    const info = await stat(path).catch(() => null);
    if (info === null) throw new RpcloadError('bad_result', `${path}: no such file or directory`);
    if (!info.isDirectory()) {
      add(path, await readResultFile(path));
      continue;
    }
    const names = (await readdir(path)).filter((name) => name.endsWith('.json') && !name.startsWith('.')).sort();
    for (const name of names) {
      const file = join(path, name);
      const result = await readResultFile(file).catch((err: unknown) => {
        if (!(err instanceof RpcloadError)) throw err;
        skipped.push(file);
        return null;
      });
      if (result !== null) add(file, result);
    }
  }
  if (points.length === 0) throw new RpcloadError('bad_result', `${paths.join(', ')}: expected at least one result file, found none`);
  return { points, skipped };
}
