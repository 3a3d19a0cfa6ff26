/**
 * Data rows for iterations, handed out synchronously on the hot path from a bounded buffer that a
 * reader fills in the background (a ReadAhead, read-ahead.ts: the file is streamed, never loaded,
 * so memory stays flat whatever its size). Per data set, by its order:
 * - sequential: file order, this part's share of the rows (row r when r % parts === part), wrapping
 *   or stopping at the end;
 * - unique: the same, never wrapping: across every worker and shard each row is used at most once;
 * - random: uniform picks with repeats from the whole file, read by byte offset (an index of 8 bytes
 *   a row, built by one pass before the clock starts).
 * An iteration whose row is not buffered yet is skipped (and counted); one whose set has run out
 * (onEnd stop) tells the run to end.
 */
import { open, type FileHandle } from 'node:fs/promises';
import type { DataPart, DataSetPlan } from '../profile/plan.ts';
import { indexRows, readRows, type RowIndex } from './data-rows.ts';
import { ReadAhead } from './read-ahead.ts';
import type { DataRow } from './iteration.ts';

/** Rows buffered per set: enough for a burst, bounded whatever the file's size. */
const HIGH_WATER = 4096;
/** The reader refills below this. */
const LOW_WATER = 1024;
/** Random order reads this many rows at a time. */
const RANDOM_BATCH = 64;

/** Why an iteration could not have its rows. */
export type RowShortage = 'behind' | 'exhausted';

/** One data set's rows, read ahead. */
abstract class RowSource {
  /** The rows read ahead: the reader pauses with HIGH_WATER buffered and reads on at LOW_WATER. */
  private readonly rows = new ReadAhead<DataRow>({ high: HIGH_WATER, low: LOW_WATER });
  /** Resolves once the buffer is full or the rows ended: the clock may start. */
  readonly ready = this.rows.ready;

  constructor(
    readonly set: DataSetPlan,
    /** Told once of a read failure during the run (the set then counts as run out). */
    protected readonly onProblem: (text: string) => void,
  ) {}

  get buffered(): number {
    return this.rows.buffered;
  }

  /** No row is buffered and none will come (the file's end with onEnd stop, or a read failure). */
  get exhausted(): boolean {
    return this.rows.exhausted;
  }

  /** The run no longer takes rows: the reader stops. */
  protected get closed(): boolean {
    return this.rows.closed;
  }

  /** A buffered row, or undefined when none is buffered now. */
  take(): DataRow | undefined {
    return this.rows.take();
  }

  /** A row taken for an iteration that could not start after all: it is handed out next. */
  giveBack(row: DataRow): void {
    this.rows.giveBack(row);
  }

  close(): void {
    this.rows.close();
  }

  /** Start reading in the background. */
  start(): this {
    this.fill()
      .catch((err: unknown) => this.onProblem(`${(err as Error).message}: no more rows from it`))
      .finally(() => this.rows.end());
    return this;
  }

  protected abstract fill(): Promise<void>;

  /** Buffer a row; waits while the buffer is full. */
  protected async push(row: DataRow): Promise<void> {
    this.rows.push(row);
    if (this.rows.full) await this.rows.room();
  }
}

/** Sequential and unique order: this part's rows in file order. */
class StreamedRows extends RowSource {
  constructor(
    set: DataSetPlan,
    private readonly part: DataPart,
    onProblem: (text: string) => void,
  ) {
    super(set, onProblem);
  }

  protected async fill(): Promise<void> {
    for (;;) {
      let r = 0;
      let own = 0;
      for await (const row of readRows(this.set)) {
        if (this.closed) return;
        if (r++ % this.part.count !== this.part.index) continue;
        own++;
        await this.push(row);
      }
      // A part without rows of its own never wraps (it would spin).
      if (this.set.onEnd !== 'wrap' || own === 0 || this.closed) return;
    }
  }
}

/** Random order: uniform picks by row offset. */
class RandomRows extends RowSource {
  private index: RowIndex | null = null;

  constructor(
    set: DataSetPlan,
    private readonly random: () => number,
    onProblem: (text: string) => void,
  ) {
    super(set, onProblem);
  }

  protected async fill(): Promise<void> {
    const index = (this.index = await indexRows(this.set));
    if (index.count === 0) return;
    const file: FileHandle = await open(this.set.file, 'r');
    try {
      while (!this.closed) {
        const picks = Array.from({ length: RANDOM_BATCH }, () => Math.floor(this.random() * index.count));
        const rows = await Promise.all(picks.map((k) => this.readRow(file, index, k)));
        for (const row of rows) if (row !== undefined) await this.push(row);
      }
    } finally {
      await file.close();
    }
  }

  private async readRow(file: FileHandle, index: RowIndex, k: number): Promise<DataRow | undefined> {
    const start = index.startOf(k);
    const bytes = Buffer.alloc(index.endOf(k) - start);
    await file.read(bytes, 0, bytes.length, start);
    return index.parse(bytes);
  }
}

/** Every data set of a run, read ahead; what the engine takes an iteration's rows from. */
export class DataFeeds {
  private readonly sources: RowSource[];
  /** The set that ran out (onEnd stop) or is behind, after a `take` that returned null. */
  shortageSet = '';

  constructor(sets: readonly DataSetPlan[], part: DataPart, random: () => number, onProblem: (text: string) => void) {
    this.sources = sets.map((set) =>
      (set.order === 'random'
        ? new RandomRows(set, random, onProblem)
        : new StreamedRows(set, part, onProblem)
      ).start(),
    );
  }

  /** Resolves when every set has rows buffered (or has none): call before the clock starts. */
  async ready(): Promise<void> {
    await Promise.all(this.sources.map((source) => source.ready));
  }

  /**
   * One row of each of `sets` (indices into the plan's `data`), in a new record for one iteration;
   * otherwise why not (`shortageSet` names the set), with no row consumed.
   */
  take(sets: readonly number[]): Record<string, DataRow> | RowShortage {
    const rows: Record<string, DataRow> = {};
    for (let i = 0; i < sets.length; i++) {
      const source = this.sources[sets[i]!]!;
      const row = source.take();
      if (row === undefined) {
        for (let j = 0; j < i; j++) this.sources[sets[j]!]!.giveBack(rows[this.sources[sets[j]!]!.set.name]!);
        this.shortageSet = source.set.name;
        return source.exhausted ? 'exhausted' : 'behind';
      }
      rows[source.set.name] = row;
    }
    return rows;
  }

  close(): void {
    for (const source of this.sources) source.close();
  }
}
