/**
 * The files of a trend: result files named on the command line (each must be valid, else exit 2)
 * and every `*.json` result file of a named directory (others there are skipped and counted).
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { RpcloadError } from '../../errors.ts';
import { readResultFile } from '../../result-file/read-result.ts';
import { trendPoint, type TrendPoint } from './trend-series.ts';

export interface TrendInput {
  readonly points: readonly TrendPoint[];
  /** Files in directories that were not result files. */
  readonly skipped: readonly string[];
}

export async function readTrendInput(paths: readonly string[]): Promise<TrendInput> {
  const points: TrendPoint[] = [];
  const skipped: string[] = [];
  for (const path of paths) {
    const info = await stat(path).catch(() => null);
    if (info === null) throw new RpcloadError('bad_result', `${path}: no such file or directory`);
    if (!info.isDirectory()) {
      points.push(trendPoint(path, await readResultFile(path)));
      continue;
    }
    const names = (await readdir(path)).filter((name) => name.endsWith('.json') && !name.startsWith('.')).sort();
    for (const name of names) {
      const file = join(path, name);
      try {
        points.push(trendPoint(file, await readResultFile(file)));
      } catch (err) {
        if (!(err instanceof RpcloadError)) throw err;
        skipped.push(file);
      }
    }
  }
  if (points.length === 0) throw new RpcloadError('bad_result', `${paths.join(', ')}: expected at least one result file, found none`);
  return { points, skipped };
}
