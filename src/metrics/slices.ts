/**
 * The recorder's slices beyond method and phase: per workload and per step tag (exact sums of its
 * phase × step cells, made when the data is serialized), and per threshold selection (recorded as
 * requests arrive, since a selection may name a client, which cells do not carry). Which cells a
 * workload, a tag or a selection covers is plain data the session derives from the plan (see
 * profile/selection.ts); the recorder never sees the plan itself.
 */
import { DimensionStats } from './dimension-stats.ts';
import { addHistograms, createLatencyHistogram, recordUs, type Histogram } from './hdr.ts';
import type { DimensionData, SelectionData } from './recorded-data.ts';
import type { RecorderDimensions } from './sample.ts';

/** A selection's live figures: its requests' stats, and their schedule lag once one was open-model. */
export class SelectionSlot {
  readonly stats = new DimensionStats(createLatencyHistogram);
  lag: Histogram | null = null;

  constructor(
    readonly key: string,
    /** The client it is limited to (index into the recorder's clients); -1 = any. */
    readonly client: number,
  ) {}

  record(latencyUs: number, serviceUs: number, outcomeIndex: number, lagUs: number): void {
    this.stats.record(latencyUs, serviceUs, outcomeIndex);
    if (lagUs >= 0) recordUs((this.lag ??= createLatencyHistogram()), lagUs);
  }
}

/** What a cell is, for the slices: its phase and step. */
interface CellKey {
  readonly phaseIndex: number;
  readonly stepIndex: number;
  readonly stats: DimensionStats;
}

/** The slices a recorder keeps besides its cells, from its dimensions. */
export class Slices {
  private readonly slots: SelectionSlot[];
  /** Per workload, the latency of its successes: its goodput (successes within the SLO's bound) is read off it. */
  private readonly successLatency: (Histogram | undefined)[] = [];
  /** Selection slots by cell key (`phase × steps + step`), found when the cell is first made. */
  private readonly slotsByCell = new Map<number, SelectionSlot[]>();

  constructor(private readonly dims: RecorderDimensions) {
    this.slots = (dims.selections ?? []).map((s) => new SelectionSlot(s.key, s.client ?? -1));
    (dims.selections ?? []).forEach((selection, i) => {
      for (const cell of selection.cells) {
        const list = this.slotsByCell.get(cell);
        if (list === undefined) this.slotsByCell.set(cell, [this.slots[i]!]);
        else list.push(this.slots[i]!);
      }
    });
  }

  /** How many steps a phase has cells for: the plan's steps, or (without them) its methods. */
  get stepCount(): number {
    return this.dims.steps?.length ?? this.dims.methods.length;
  }

  /** The method of step `stepIndex`. */
  methodOf(stepIndex: number): number {
    return this.dims.steps?.[stepIndex]?.method ?? stepIndex;
  }

  /** The selections a new cell feeds (an empty list for most cells). */
  slotsOf(phaseIndex: number, stepIndex: number): readonly SelectionSlot[] {
    return this.slotsByCell.get(phaseIndex * this.stepCount + stepIndex) ?? NONE;
  }

  /** The workload of a phase (0 without workload dimensions: one workload). */
  workloadOf(phaseIndex: number): number {
    return this.dims.phaseWorkloads?.[phaseIndex] ?? 0;
  }

  /** Workload names ('default' for a recorder made without them). */
  get workloads(): readonly string[] {
    return this.dims.workloads ?? ['default'];
  }

  /** The tags ("key:value") of step `stepIndex`. */
  tagsOf(stepIndex: number): readonly string[] {
    return this.dims.steps?.[stepIndex]?.tags ?? NO_TAGS;
  }

  /** Per step tag, the sum of the cells whose step carries it (exact, HDR addition). */
  byTag(cells: readonly CellKey[], serialize: (stats: DimensionStats) => DimensionData): Record<string, DimensionData> {
    const sums = new Map<string, DimensionStats>();
    for (const cell of cells)
      for (const tag of this.tagsOf(cell.stepIndex)) {
        let sum = sums.get(tag);
        if (sum === undefined) sums.set(tag, (sum = new DimensionStats(createLatencyHistogram)));
        sum.add(cell.stats);
      }
    return Object.fromEntries([...sums].map(([tag, stats]) => [tag, serialize(stats)]));
  }

  /** Each workload's schedule lag: the sum of its phases' (encoded); only workloads with open-model requests. */
  lagByWorkload(
    phaseLag: readonly (Histogram | undefined)[],
    encode: (histogram: Histogram) => string,
  ): Record<string, string> {
    const groups = new Map<number, Histogram[]>();
    phaseLag.forEach((lag, phase) => {
      if (lag === undefined) return;
      const workload = this.workloadOf(phase);
      groups.set(workload, [...(groups.get(workload) ?? []), lag]);
    });
    return Object.fromEntries(
      [...groups].map(([w, lags]) => [
        this.workloads[w]!,
        encode(lags.length === 1 ? lags[0]! : addHistograms(lags, createLatencyHistogram)),
      ]),
    );
  }

  /** Every selection's data (also one that picked nothing yet: its threshold then reads no requests). */
  bySelector(
    serialize: (stats: DimensionStats) => DimensionData,
    encode: (histogram: Histogram) => string,
  ): Record<string, SelectionData> {
    return Object.fromEntries(
      this.slots.map((slot) => [
        slot.key,
        { ...serialize(slot.stats), ...(slot.lag === null ? {} : { scheduleLag: encode(slot.lag) }) },
      ]),
    );
  }

  /** A successful request of a phase's workload. */
  recordSuccess(phaseIndex: number, latencyUs: number): void {
    recordUs((this.successLatency[this.workloadOf(phaseIndex)] ??= createLatencyHistogram()), latencyUs);
  }

  /** The latency of a workload's successes so far; undefined before its first. */
  successLatencyOf(workload: number): Histogram | undefined {
    return this.successLatency[workload];
  }

  /** Each workload's success latency (encoded), for those with a success. */
  successLatencyByWorkload(encode: (histogram: Histogram) => string): Record<string, string> {
    return Object.fromEntries(
      this.successLatency.flatMap((histogram, w) =>
        histogram === undefined ? [] : [[this.workloads[w]!, encode(histogram)]],
      ),
    );
  }

  /** The live slot of a selection, for a threshold judged while the run goes; undefined when the recorder has none. */
  selection(key: string): SelectionSlot | undefined {
    return this.slots.find((slot) => slot.key === key);
  }
}

const NONE: readonly SelectionSlot[] = [];
const NO_TAGS: readonly string[] = [];
