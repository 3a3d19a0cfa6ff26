/**
 * Reading data files (the profile's `data` section) as rows: CSV with a header row (RFC 4180, by
 * csv-parse) or JSON Lines (one object a line). Everything here streams: a file is never loaded
 * whole. Three readers: `readRows` (the rows in file order, for sequential and unique order),
 * `scanDataSet` (the check before the run: every row well-formed, every column a template names
 * there, one line naming file, line and column otherwise), and `indexRows` (the byte offset of
 * each row, for random order: 8 bytes a row).
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parse, type CsvError } from 'csv-parse';
import { parse as parseSync } from 'csv-parse/sync';
import { RpcloadError } from '../errors.ts';
import type { DataSetPlan } from '../profile/plan.ts';
import type { DataRow } from './iteration.ts';

const CSV_OPTIONS = { bom: true, skip_empty_lines: true } as const;
/** The UTF-8 byte order mark, as text and as the bytes at a file's start. */
const BOM = '\uFEFF';
const BOM_BYTES = Buffer.from(BOM);

/** `data set "users" (users.csv)`: how a problem line names the file. */
function fileLabel(set: Pick<DataSetPlan, 'name' | 'file'>): string {
  return `data set "${set.name}" (${set.file})`;
}

function dataError(set: Pick<DataSetPlan, 'name' | 'file'>, line: number | string, message: string): RpcloadError {
  return new RpcloadError('bad_data', `${fileLabel(set)}: line ${line}: ${message}`);
}

/** A data set without a row would start no iteration: a run reading it could only send nothing. */
function noRows(set: Pick<DataSetPlan, 'name' | 'file'>, found: string): RpcloadError {
  return new RpcloadError('bad_data', `${fileLabel(set)}: expected at least one row, ${found}`);
}

/** csv-parse's error as one line: the line it is on, and what is wrong (a ragged row in plain words). */
function csvProblem(set: DataSetPlan, err: unknown, header: readonly string[] | null): RpcloadError {
  const e = err as Partial<CsvError> & { record?: unknown[]; lines?: number; column?: string | number };
  if (e.code === 'CSV_RECORD_INCONSISTENT_COLUMNS' && header !== null)
    return dataError(
      set,
      e.lines ?? '?',
      `expected ${header.length} fields like the header (${header.join(', ')}), found ${Array.isArray(e.record) ? e.record.length : 'another number'}`,
    );
  const message = (e.message ?? String(err)).replace(/ (on|at) line \d+.*$/, '');
  return dataError(
    set,
    e.lines ?? '?',
    `${message}${e.column !== undefined && e.column !== null ? ` (column ${String(e.column)})` : ''}`,
  );
}

/**
 * The rows of a JSON Lines file in order, each with its line number; blank lines are skipped.
 * Ends early once `signal` aborts; the file is closed however the reading ends.
 */
async function* jsonlLines(set: DataSetPlan, signal?: AbortSignal): AsyncGenerator<{ row: DataRow; line: number }> {
  const input = createReadStream(set.file);
  const lines = createInterface({ input, crlfDelay: Infinity });
  let line = 0;
  try {
    for await (const read of lines) {
      if (signal?.aborted) return;
      line++;
      // A byte order mark some editors write is not part of the first row (csv-parse drops it too: bom).
      const text = line === 1 && read.startsWith(BOM) ? read.slice(1) : read;
      if (text.trim() === '') continue;
      let row: unknown;
      try {
        row = JSON.parse(text);
      } catch (err) {
        throw dataError(set, line, `expected a JSON object, found text that is not JSON (${(err as Error).message})`);
      }
      if (row === null || typeof row !== 'object' || Array.isArray(row))
        throw dataError(
          set,
          line,
          `expected a JSON object, found ${Array.isArray(row) ? 'an array' : JSON.stringify(row)}`,
        );
      yield { row: row as DataRow, line };
    }
  } finally {
    lines.close();
    input.destroy();
  }
}

/** The rows in file order (objects keyed by the header's columns, or the JSON Lines objects). */
export async function* readRows(set: DataSetPlan): AsyncGenerator<DataRow> {
  if (set.format === 'jsonl') {
    for await (const { row } of jsonlLines(set)) yield row;
    return;
  }
  const parser = createReadStream(set.file).pipe(parse({ ...CSV_OPTIONS, columns: true }));
  try {
    for await (const row of parser) yield row as DataRow;
  } catch (err) {
    throw csvProblem(set, err, null);
  }
}

/** What the check before the run found. */
export interface DataScan {
  readonly rows: number;
}

/**
 * Read the whole file once, before the run: a missing column, a ragged row, a line that is not
 * a JSON object (or lacks a key a template names) throws one RpcloadError naming file and line.
 * Once `signal` aborts (a Ctrl-C while a large file is read) the scan ends where it is, unjudged:
 * the run that asked for it is stopping.
 */
export async function scanDataSet(set: DataSetPlan, signal?: AbortSignal): Promise<DataScan> {
  let rows = 0;
  try {
    if (set.format === 'jsonl') {
      for await (const { row, line } of jsonlLines(set, signal)) {
        for (const column of set.columns)
          if (!Object.hasOwn(row, column))
            throw dataError(set, line, `no key "${column}" (a template reads {{data.${set.name}.${column}}})`);
        rows++;
      }
      if (rows === 0 && signal?.aborted !== true) throw noRows(set, 'found no JSON object in the file');
      return { rows };
    }
    let header: string[] | null = null;
    const input = createReadStream(set.file);
    const parser = input.pipe(
      parse({
        ...CSV_OPTIONS,
        columns: (names: string[]) => {
          header = names;
          const missing = set.columns.filter((column) => !names.includes(column));
          if (missing.length > 0)
            throw dataError(
              set,
              1,
              `no column ${missing.map((c) => `"${c}"`).join(', ')} in the header (a template reads {{data.${set.name}.${missing[0]}}}); the header has ${names.join(', ')}`,
            );
          return names;
        },
      }),
    );
    try {
      for await (const _row of parser) {
        if (signal?.aborted) return { rows };
        rows++;
      }
    } catch (err) {
      if (err instanceof RpcloadError) throw err;
      throw csvProblem(set, err, header);
    } finally {
      input.destroy();
    }
    if (header === null) throw noRows(set, 'found an empty file');
    if (rows === 0) throw noRows(set, 'found only the header');
    return { rows };
  } catch (err) {
    if (err instanceof RpcloadError) throw err;
    throw new RpcloadError('bad_data', `${fileLabel(set)}: ${(err as Error).message}`);
  }
}

/** Row offsets grow in chunks (never copied): 8 bytes a row. */
const OFFSET_CHUNK = 1 << 20;

/** The byte offset at which each row starts, plus the file's end: what random order reads rows by. */
export class RowIndex {
  private readonly chunks: Float64Array[] = [];
  /** Rows indexed. */
  count = 0;
  endOffset = 0;
  /** The CSV header (null for JSON Lines). */
  header: string[] | null = null;

  push(offset: number): void {
    const chunk = this.count >>> 20;
    (this.chunks[chunk] ??= new Float64Array(OFFSET_CHUNK))[this.count & (OFFSET_CHUNK - 1)] = offset;
    this.count++;
  }

  /** Where row `k` starts; where the next one starts (or the file ends). */
  startOf(k: number): number {
    return this.chunks[k >>> 20]![k & (OFFSET_CHUNK - 1)]!;
  }

  endOf(k: number): number {
    return k + 1 < this.count ? this.startOf(k + 1) : this.endOffset;
  }

  /** The bytes of row k (with any blank lines after it) as a row. */
  parse(bytes: Buffer): DataRow | undefined {
    if (this.header === null) {
      const text = bytes.toString('utf8');
      const newline = text.indexOf('\n');
      return JSON.parse(newline < 0 ? text : text.slice(0, newline)) as DataRow;
    }
    const [record] = parseSync<DataRow>(bytes, { ...CSV_OPTIONS, bom: false, columns: this.header });
    return record;
  }
}

/** Index the rows of a file (one streaming pass); the file was checked by scanDataSet before. */
export async function indexRows(set: DataSetPlan): Promise<RowIndex> {
  const index = new RowIndex();
  if (set.format === 'jsonl') {
    let offset = 0;
    let lineStart = 0;
    let blank = true;
    for await (const chunk of createReadStream(set.file) as AsyncIterable<Buffer>) {
      // The first row starts after a byte order mark (a row is read by its offset, then parsed alone).
      let start = 0;
      if (offset === 0 && chunk.subarray(0, 3).equals(BOM_BYTES)) start = lineStart = 3;
      for (let i = start; i < chunk.length; i++) {
        const byte = chunk[i]!;
        if (byte === 0x0a) {
          if (!blank) index.push(lineStart);
          lineStart = offset + i + 1;
          blank = true;
        } else if (byte !== 0x20 && byte !== 0x0d && byte !== 0x09) blank = false;
      }
      offset += chunk.length;
    }
    if (!blank) index.push(lineStart);
    index.endOffset = offset;
    return index;
  }
  // Records as arrays, the first being the header; info.bytes is where each record ends (its line break included).
  const parser = createReadStream(set.file).pipe(parse({ ...CSV_OPTIONS, info: true }));
  let nextStart = 0;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { bytes: number } }>) {
      if (index.header === null) index.header = record;
      else index.push(nextStart);
      nextStart = info.bytes;
    }
  } catch (err) {
    throw csvProblem(set, err, index.header);
  }
  index.endOffset = nextStart;
  return index;
}
