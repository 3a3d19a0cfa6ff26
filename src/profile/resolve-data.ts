/**
 * Resolves the `data` section: each set's file (relative to the profile, and there), its format
 * (from the extension), its order and what happens when its rows run out, and the columns the
 * profile's templates name. The file's contents — header, ragged rows — are checked by the driver's
 * data scan before the run (driver/data-scan.ts), which streams it.
 */
import { statSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import type { DataSetPlan } from './plan.ts';
import { PROFILE_DEFAULTS as D } from './profile-defaults.ts';
import { DataSetSchema } from './profile-schema.ts';
import { fileErrorReason } from './profile-files.ts';
import { childPointer, expected, type Problem } from './problems.ts';
import { isRecord, validFields } from './valid-fields.ts';

const FORMATS: Readonly<Record<string, DataSetPlan['format']>> = {
  '.csv': 'csv',
  '.jsonl': 'jsonl',
  '.ndjson': 'jsonl',
};

/** The names the section declares (for checking templates before the sets are resolved). */
export function dataSetNames(data: unknown): Set<string> {
  return new Set(isRecord(data) ? Object.keys(data) : []);
}

export function resolveData(
  data: unknown,
  baseDir: string,
  columns: ReadonlyMap<string, ReadonlySet<string>>,
  problems: Problem[],
): DataSetPlan[] {
  if (!isRecord(data)) return [];
  return Object.entries(data).map(([name, value]) => {
    const pointer = childPointer('/data', name);
    const fields = validFields(DataSetSchema, value);
    const file = fields.file === undefined ? '' : resolve(baseDir, fields.file);
    const format = FORMATS[extname(file).toLowerCase()];
    if (fields.file !== undefined) {
      if (format === undefined)
        problems.push(expected(`${pointer}/file`, 'a .csv, .jsonl or .ndjson file', fields.file));
      else {
        try {
          if (!statSync(file).isFile())
            problems.push(expected(`${pointer}/file`, `a file (${file} is not one)`, fields.file));
        } catch (err) {
          problems.push(expected(`${pointer}/file`, `a readable file (${file}: ${fileErrorReason(err)})`, fields.file));
        }
      }
    }
    const order = fields.order ?? D.data.order;
    if (order === 'unique' && fields.onEnd === 'wrap')
      problems.push(
        expected(`${pointer}/onEnd`, '"stop" with order "unique" (wrapping would use rows again)', fields.onEnd),
      );
    const onEnd = fields.onEnd ?? (order === 'unique' ? 'stop' : D.data.onEnd);
    return { name, file, format: format ?? 'csv', order, onEnd, columns: [...(columns.get(name) ?? [])] };
  });
}
