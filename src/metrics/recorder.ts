/**
 * The run's metrics recorder: samples in from the driver, live snapshots and serialized data out,
 * in memory bounded by the run's dimensions and duration.
 */
import { OUTCOME_SUCCESS, outcomeClass, type OutcomeClass } from '../api/outcome.ts';
import type { RateLimitContract } from '../contract/rate-limit.ts';
import { DimensionStats } from './dimension-stats.ts';
import {
  copyHistogram,
  createCompactHistogram,
  createLatencyHistogram,
  encodeHistogram,
  percentilesMs,
  recordUs,
  usToMs,
  valuesAtPercentilesUs,
  type Histogram,
} from './hdr.ts';
import type { LiveClientRow, LiveSnapshot, LiveWorkloadRow } from '../contract/live-snapshot.ts';
import { countsRecord, OUTCOME_SLOTS, OutcomeTable } from './outcome-table.ts';
import { RateLimitLedger } from './rate-limit-ledger.ts';
import { RecentErrors } from './recent-errors.ts';
import {
  emptyRecordedData,
  mapEncodings,
  type DimensionData,
  type EncodedPair,
  type RecordedData,
} from './recorded-data.ts';
import type { RecorderDimensions, Sample, TokenSample } from './sample.ts';
import { ExemplarReservoir, LatestTracedRequests } from './exemplars.ts';
import { Timeline } from './timeline.ts';
import { Slices, type SelectionSlot } from './slices.ts';
import { goodputWithin, p99Ms, sumOf, WorkloadLive } from './workload-live.ts';

/**
 * The requests of one phase × step: the finest slice the recorder keeps histograms for. Each
 * request is recorded into its cell once; per-method, per-phase, per-workload and per-tag figures
 * are exact sums of cells (HDR addition), made when the data is serialized. Live exporters read
 * the cells as they are.
 */
export interface RecordedCell {
  readonly phaseIndex: number;
  /** The plan's step (or, for a recorder made without steps, the method) its requests are of. */
  readonly stepIndex: number;
  readonly methodIndex: number;
  /** The threshold selections its requests may feed (most cells feed none). */
  readonly selections: readonly SelectionSlot[];
  /** requests, outcomeCounts (indexed like `Recorder.outcomeKeys`), latency and service time (µs). */
  readonly stats: DimensionStats;
  /** Per latency and service-time bucket, the latest request with a trace context: the live exemplars of `--metrics-listen`. */
  readonly latestTraced: LatestTracedRequests;
}

export interface RecorderOptions {
  /** The contract the passive ledger judges against; null = no rate-limit ledger in the data. */
  readonly rateLimit: RateLimitContract | null;
  /** Exemplars kept per kind and method (the N slowest, N per outcome); default 10, 0 = none. */
  readonly exemplarsPerKind?: number;
}

/** Distinct skip reasons kept apart; more are counted as "other". */
export const MAX_SKIP_REASONS = 32;
/** Distinct notices kept (each is one warning line in the result). */
const MAX_NOTICES = 20;
/** A gradual serialization encodes for at most about this long before it lets the event loop turn. */
const ENCODE_SLICE_MS = 1;
/** Marks an encoding still to be made (never the start of a base64 text). */
const DEFERRED = '\u0000deferred:';
/** Timeline seconds in a live snapshot. */
export const SNAPSHOT_SECONDS = 120;

const dimensionError = (what: string, index: number): RangeError =>
  new RangeError(`sample ${what} index ${index} is outside the recorder's dimensions`);

/**
 * The recorder: the driver pushes samples in, views pull snapshots, the result writer pulls
 * serialize(). It keeps histograms (overall, per phase × method cell, per outcome; compact per client),
 * outcome counters, a per-second timeline, skip counts, recent distinct errors, the passive
 * rate-limit ledger and a bounded reservoir of exemplars (exemplars.ts) — nothing per request, so memory is bounded by the dimensions, the distinct
 * outcomes (capped) and the run's duration in seconds. record() is a dozen histogram increments
 * and counter bumps, indexed by array position.
 */
export class Recorder {
  private readonly outcomes = new OutcomeTable();
  private readonly classes: OutcomeClass[] = [];
  private readonly overall = new DimensionStats(createLatencyHistogram);
  /** By `phaseIndex * steps + stepIndex`, created at the cell's first request. */
  private readonly cells: (RecordedCell | undefined)[] = [];
  /** Per method, phase and workload sums of cells as last serialized, reused while no cell of theirs changed. */
  private readonly methodSums = new Map<number, { readonly requests: number; readonly stats: DimensionStats }>();
  private readonly phaseSums = new Map<number, { readonly requests: number; readonly stats: DimensionStats }>();
  private readonly workloadSums = new Map<number, { readonly requests: number; readonly stats: DimensionStats }>();
  /**
   * The histograms the last gradual serialization copied into, kept for the next one to copy into
   * again; null while one runs, so that two at once never share a copy.
   */
  private spareCopies: Histogram[] | null = [];
  private readonly slices: Slices;
  /** Live per-workload figures; null with one workload (the overall figures are its own). */
  private readonly workloadLive: WorkloadLive | null;
  /** Fixed at construction, read on every request: the cell index's stride, and whether samples name their step. */
  private readonly stepCount: number;
  private readonly bySteps: boolean;
  /** Several workloads: each keeps its successes' latency (its goodput); with one, the run's success slice is its. */
  private readonly successByWorkload: boolean;
  private readonly clients: DimensionStats[];
  /** Per replica the load was spread over (none without replicas). */
  private readonly replicas: DimensionStats[];
  private readonly byOutcome: (DimensionStats | undefined)[] = [];
  private readonly lag = createLatencyHistogram();
  /** Per phase, created at the phase's first open-model request (closed phases have none). */
  private readonly phaseLag: (Histogram | undefined)[] = [];
  private readonly timeline = new Timeline();
  private readonly recentErrors = new RecentErrors();
  private readonly ledger: RateLimitLedger;
  private readonly tokenOutcomes = new OutcomeTable();
  private readonly tokenCounts = new Float64Array(OUTCOME_SLOTS);
  private readonly tokenLatency = createLatencyHistogram();
  private readonly skipped = new Map<string, number>();
  /** The same by workload (index), for the skips the driver attributes to one. */
  private readonly skippedByWorkload = new Map<number, Map<string, number>>();
  private readonly notices = new Set<string>();
  /** Connections opened, by negotiated protocol. */
  private readonly connections = new Map<string, number>();
  /** Requests sent once more after meeting a connection the server had closed (stale-connections.ts in the driver). */
  private staleConnectionRetries = 0;
  private readonly exemplars: ExemplarReservoir;
  private lastAtMs = 0;

  constructor(
    private readonly dims: RecorderDimensions,
    options: RecorderOptions,
  ) {
    this.slices = new Slices(dims);
    this.workloadLive = this.slices.workloads.length > 1 ? new WorkloadLive(this.slices.workloads.length) : null;
    this.stepCount = this.slices.stepCount;
    this.bySteps = dims.steps !== undefined;
    this.successByWorkload = this.slices.workloads.length > 1;
    this.clients = dims.clients.map(() => new DimensionStats(createCompactHistogram));
    this.replicas = (dims.replicas ?? []).map(() => new DimensionStats(createLatencyHistogram));
    this.ledger = new RateLimitLedger(dims.clients, options.rateLimit);
    this.exemplars = new ExemplarReservoir(dims, options.exemplarsPerKind);
  }

  /** The run's methods, phases and clients, by name: what the sample indexes point at. */
  get dimensions(): RecorderDimensions {
    return this.dims;
  }

  /** Outcome keys so far, by outcome index (the index of `DimensionStats.outcomeCounts`). */
  get outcomeKeys(): readonly string[] {
    return this.outcomes.keys;
  }

  /** A phase's schedule-lag histogram (µs); undefined while it has had no open-model request. */
  scheduleLagOf(phaseIndex: number): Histogram | undefined {
    return this.phaseLag[phaseIndex];
  }

  /** Retry-After back-offs sat out before a request, all clients: how many and the ms waited. */
  retryAfterWaits(): { count: number; waitedMs: number } {
    return this.ledger.retryAfterWaits();
  }

  /** Every phase × method cell that has seen a request. */
  forEachCell(visit: (cell: RecordedCell) => void): void {
    for (const cell of this.cells) if (cell !== undefined) visit(cell);
  }

  /** One finished API request. Copies what it needs: the sample object may be reused. */
  record(s: Sample): void {
    // A recorder made without steps (the warm-up's, a test's) slices by method alone.
    const step = this.bySteps ? (s.stepIndex ?? s.methodIndex) : s.methodIndex;
    const cell = this.cells[s.phaseIndex * this.stepCount + step] ?? this.newCell(s.phaseIndex, step);
    const client = this.clients[s.clientIndex] ?? throwError(dimensionError('client', s.clientIndex));
    const oi = this.outcomes.indexOf(s.outcome);
    const cls = (this.classes[oi] ??= outcomeClass(this.outcomes.keys[oi]!));
    this.overall.record(s.latencyUs, s.serviceUs, oi);
    cell.stats.record(s.latencyUs, s.serviceUs, oi);
    cell.latestTraced.offer(s);
    for (const slot of cell.selections)
      if (slot.client < 0 || slot.client === s.clientIndex) slot.record(s.latencyUs, s.serviceUs, oi, s.lagUs);
    client.record(s.latencyUs, s.serviceUs, oi);
    if (this.replicas.length > 0) this.replicas[s.replicaIndex ?? 0]?.record(s.latencyUs, s.serviceUs, oi);
    (this.byOutcome[oi] ??= new DimensionStats(createLatencyHistogram)).record(s.latencyUs, s.serviceUs, oi);
    if (s.lagUs >= 0) {
      recordUs(this.lag, s.lagUs);
      recordUs((this.phaseLag[s.phaseIndex] ??= createLatencyHistogram()), s.lagUs);
    }
    // With one workload its successes are all the run's (byOutcome's success slice): nothing more to record.
    if (cls === 'success' && this.successByWorkload) this.slices.recordSuccess(s.phaseIndex, s.latencyUs);
    this.workloadLive?.record(this.slices.workloadOf(s.phaseIndex), s.latencyUs, cls, s.doneAtMs);
    this.timeline.record(s.doneAtMs, s.latencyUs, cls);
    this.exemplars.offer(s.methodIndex, s, this.outcomes.keys[oi]!, cls === 'success');
    this.ledger.record(s);
    if (cls === 'error') this.recentErrors.record('api', s.outcome, s.detail, s.doneAtMs);
    if (s.doneAtMs > this.lastAtMs) this.lastAtMs = s.doneAtMs;
  }

  private newCell(phaseIndex: number, stepIndex: number): RecordedCell {
    if (!(stepIndex >= 0 && stepIndex < this.stepCount && Number.isInteger(stepIndex)))
      throw dimensionError('step', stepIndex);
    if (!(phaseIndex >= 0 && phaseIndex < this.dims.phases.length && Number.isInteger(phaseIndex)))
      throw dimensionError('phase', phaseIndex);
    const cell = {
      phaseIndex,
      stepIndex,
      methodIndex: this.slices.methodOf(stepIndex),
      selections: this.slices.slotsOf(phaseIndex, stepIndex),
      stats: new DimensionStats(createLatencyHistogram),
      latestTraced: new LatestTracedRequests(),
    };
    this.cells[phaseIndex * this.stepCount + stepIndex] = cell;
    return cell;
  }

  /** The live figures of a threshold selection (its canonical key); undefined when the recorder keeps none. */
  selection(key: string): SelectionSlot | undefined {
    return this.slices.selection(key);
  }

  /**
   * The sum of the cells `pick` selects into one slice per index; a slice whose cells saw no new
   * request since the last call is the same object as then (its encoding is cached with it).
   */
  private sumCells(
    sums: Map<number, { readonly requests: number; readonly stats: DimensionStats }>,
    pick: (cell: RecordedCell) => number,
  ): Map<number, DimensionStats> {
    const groups = new Map<number, RecordedCell[]>();
    this.forEachCell((cell) => {
      const key = pick(cell);
      const group = groups.get(key);
      if (group === undefined) groups.set(key, [cell]);
      else group.push(cell);
    });
    const out = new Map<number, DimensionStats>();
    for (const [key, cells] of [...groups].sort((a, b) => a[0] - b[0])) {
      // A sum of one cell is that cell, read as it is: no sum of its own to allocate and fill. Not
      // kept in `sums`: when a second cell joins, the sum refilled below must not be the cell.
      if (cells.length === 1) {
        out.set(key, cells[0]!.stats);
        continue;
      }
      const requests = cells.reduce((n, c) => n + c.stats.requests, 0);
      let sum = sums.get(key);
      if (sum?.requests !== requests) {
        // The last sum's histograms are refilled, not allocated anew (see copyHistogram): nothing
        // outside keeps them, as serialize copies or encodes what it reads.
        const stats = sum?.stats ?? new DimensionStats(createLatencyHistogram);
        stats.reset();
        for (const cell of cells) stats.add(cell.stats);
        sum = { requests, stats };
        sums.set(key, sum);
      }
      out.set(key, sum.stats);
    }
    return out;
  }

  /** Something worth one warning in the result (said once, however often it is noticed). */
  notice(text: string): void {
    if (this.notices.size < MAX_NOTICES) this.notices.add(text);
  }

  /** A connection the load opened, and the protocol it negotiated (`h2`, `http/1.1`). */
  recordConnection(protocol: string): void {
    this.connections.set(protocol, (this.connections.get(protocol) ?? 0) + 1);
  }

  /** A request went out once more on a new connection: the one it was written to had been closed by the server. */
  recordStaleConnectionRetry(): void {
    this.staleConnectionRetries++;
  }

  /** One token request: timed and counted apart from the API figures. */
  recordToken(t: TokenSample): void {
    this.tokenCounts[this.tokenOutcomes.indexOf(t.outcome)]!++;
    recordUs(this.tokenLatency, t.latencyUs);
    if (t.outcome !== 'success') this.recentErrors.record('token', t.outcome, t.detail, t.doneAtMs);
    if (t.doneAtMs > this.lastAtMs) this.lastAtMs = t.doneAtMs;
  }

  /**
   * `count` arrivals that were not sent, e.g. "all clients backing off" (the driver's own words;
   * sanitized at render), by the workload of `phaseIndex` when given.
   */
  recordSkipped(reason: string, count = 1, phaseIndex?: number): void {
    countSkip(this.skipped, reason, count);
    if (phaseIndex !== undefined) {
      const workload = this.slices.workloadOf(phaseIndex);
      let own = this.skippedByWorkload.get(workload);
      if (own === undefined) this.skippedByWorkload.set(workload, (own = new Map<string, number>()));
      countSkip(own, reason, count);
    }
  }

  /** Cheap copy of the live figures at `nowMs` (ms since the run's origin). */
  snapshot(nowMs: number): LiveSnapshot {
    const counts = this.overall.outcomeCounts;
    const byClass = { success: 0, rate_limited: 0, error: 0 };
    this.outcomes.keys.forEach((_, i) => (byClass[this.classes[i]!] += counts[i]!));
    const nowS = Math.floor(nowMs / 1000);
    let last10 = 0;
    for (let t = nowS - 10; t < nowS; t++) last10 += this.timeline.requestsAt(t);
    const tokenRequests = this.tokenLatency.totalCount;
    const tokenSuccesses = countsRecord(this.tokenOutcomes.keys, this.tokenCounts).success ?? 0;
    return {
      elapsedMs: nowMs,
      requests: this.overall.requests,
      outcomes: countsRecord(this.outcomes.keys, counts),
      success: byClass.success,
      rateLimited: byClass.rate_limited,
      errors: byClass.error,
      latencyMs: percentilesMs(this.overall.latency),
      serviceTimeMs: percentilesMs(this.overall.serviceTime),
      scheduleLagMs: this.lag.totalCount > 0 ? percentilesMs(this.lag) : null,
      rpsLastSecond: this.timeline.requestsAt(nowS - 1),
      rpsLast10s: nowS > 0 ? last10 / Math.min(10, nowS) : 0,
      timeline: this.timeline.rowsFrom(nowS - SNAPSHOT_SECONDS + 1, nowS),
      clients: this.dims.clients.map((id, i) => this.clientRow(id, i, nowMs)),
      tokens: {
        requests: tokenRequests,
        failures: tokenRequests - tokenSuccesses,
        latencyMs: percentilesMs(this.tokenLatency),
      },
      skipped: Object.fromEntries(this.skipped),
      ...(this.skippedByWorkload.size === 0 ? {} : { skippedByWorkload: this.skippedByWorkloadRecord() }),
      recentErrors: this.recentErrors.list(),
      workloads: this.workloadRows(nowS, byClass),
    };
  }

  /** One live row per workload: with one, the overall figures; with several, each its own (WorkloadLive). */
  private workloadRows(
    nowS: number,
    byClass: { success: number; rate_limited: number; error: number },
  ): LiveWorkloadRow[] {
    const keeping = {
      slices: this.slices,
      phaseLag: this.phaseLag,
      skippedByWorkload: this.skippedByWorkload,
      goodputBoundMs: this.dims.goodputBoundMs ?? null,
    };
    if (this.workloadLive !== null) return this.workloadLive.rows(nowS, keeping);
    const { valuesUs } = valuesAtPercentilesUs(this.overall.latency, [50, 99]);
    const row: LiveWorkloadRow = {
      name: this.slices.workloads[0]!,
      requests: this.overall.requests,
      success: byClass.success,
      rateLimited: byClass.rate_limited,
      errors: byClass.error,
      rpsLastSecond: this.timeline.requestsAt(nowS - 1),
      latencyMs: { p50: usToMs(valuesUs[0]!), p99: usToMs(valuesUs[1]!) },
      scheduleLagP99Ms: this.lag.totalCount > 0 ? p99Ms(this.lag) : null,
      // One workload: its successes are the run's success slice (no second histogram is kept).
      goodput: goodputWithin(this.successLatency(), keeping.goodputBoundMs),
      skipped: sumOf(this.skipped),
    };
    return [row];
  }

  /** The skips the driver attributed to a workload, by its name, then by reason. */
  private skippedByWorkloadRecord(): Record<string, Record<string, number>> {
    return Object.fromEntries(
      [...this.skippedByWorkload].map(([w, reasons]) => [this.slices.workloads[w]!, Object.fromEntries(reasons)]),
    );
  }

  /** Everything recorded, as plain JSON-able data (histograms encoded). */
  serialize(): RecordedData {
    return this.serializeWith(undefined);
  }

  /**
   * The same, for a checkpoint taken while the load runs on this thread: the histograms that
   * changed are copied now (exact, a few ms in all) and encoded afterwards, a slice at a time
   * between turns of the event loop. Encoding them at once (~0.1 ms each, two per client) held
   * the sending loop up for tens of milliseconds at every checkpoint of a run with 100 clients.
   * The copies are made into the last checkpoint's (spareCopies): copying 33 histograms into new
   * ones stopped a 10,000/s open-model run's sending loop for 16 ms of its checkpoint's 24.5 ms.
   */
  async serializeGradually(): Promise<RecordedData> {
    const spares = this.spareCopies ?? [];
    this.spareCopies = null;
    const copies: Histogram[] = [];
    const data = this.serializeWith(
      (histogram) => `${DEFERRED}${copies.push(copyHistogram(histogram, spares[copies.length])) - 1}`,
    );
    const encoded: string[] = [];
    let sliceStartMs = performance.now();
    for (const copy of copies) {
      encoded.push(encodeHistogram(copy));
      if (performance.now() - sliceStartMs >= ENCODE_SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStartMs = performance.now();
      }
    }
    this.spareCopies = copies;
    return mapEncodings(data, (text) =>
      text.startsWith(DEFERRED) ? encoded[Number(text.slice(DEFERRED.length))]! : text,
    );
  }

  /**
   * Only the threshold selections' data (the rest empty): what a threshold judged while the run
   * goes reads, once a second — a few histograms encoded, not the whole recorder.
   */
  selectionsOnly(): RecordedData {
    const keys = this.outcomes.keys;
    return {
      ...emptyRecordedData(),
      lastAtMs: this.lastAtMs,
      bySelector: this.slices.bySelector((stats) => stats.serialize(keys), encodeHistogram),
    };
  }

  /** `encode`: undefined to encode at once (and keep each slice's encoding), else a deferred encoding. */
  private serializeWith(encode: ((histogram: Histogram) => string) | undefined): RecordedData {
    const keys = this.outcomes.keys;
    const encodeOrDefer = encode ?? encodeHistogram;
    const named = (
      names: readonly string[],
      stats: ReadonlyMap<number, DimensionStats> | readonly DimensionStats[],
    ): Record<string, DimensionData> => {
      const out: Record<string, DimensionData> = {};
      stats.forEach((d, i) => {
        if (d.requests > 0) out[names[i]!] = d.serialize(keys, encode);
      });
      return out;
    };
    const byOutcome: Record<string, EncodedPair> = {};
    this.byOutcome.forEach((d, i) => {
      if (d === undefined) return;
      const { latency, serviceTime } = d.serialize(keys, encode);
      byOutcome[keys[i]!] = { latency, serviceTime };
    });
    return {
      format: 'rpcload/recorded@1',
      lastAtMs: this.lastAtMs,
      overall: this.overall.serialize(keys, encode),
      scheduleLag: encodeOrDefer(this.lag),
      scheduleLagByPhase: Object.fromEntries(
        this.dims.phases.flatMap((name, i) => (this.phaseLag[i] ? [[name, encodeOrDefer(this.phaseLag[i])]] : [])),
      ),
      byMethod: named(
        this.dims.methods,
        this.sumCells(this.methodSums, (c) => c.methodIndex),
      ),
      byPhase: named(
        this.dims.phases,
        this.sumCells(this.phaseSums, (c) => c.phaseIndex),
      ),
      byWorkload: named(
        this.slices.workloads,
        this.sumCells(this.workloadSums, (c) => this.slices.workloadOf(c.phaseIndex)),
      ),
      scheduleLagByWorkload: this.slices.lagByWorkload(this.phaseLag, encodeOrDefer),
      successLatencyByWorkload: this.successByWorkload
        ? this.slices.successLatencyByWorkload(encodeOrDefer)
        : this.onlyWorkloadSuccess(byOutcome),
      skippedByWorkload: this.skippedByWorkloadRecord(),
      ...this.tagAndSelectorData(keys, encode, encodeOrDefer),
      byClient: named(this.dims.clients, this.clients),
      ...(this.replicas.length > 0 ? { byReplica: named(this.dims.replicas!, this.replicas) } : {}),
      byOutcome,
      tokens: {
        latency: encodeOrDefer(this.tokenLatency),
        outcomes: countsRecord(this.tokenOutcomes.keys, this.tokenCounts),
      },
      skipped: Object.fromEntries(this.skipped),
      timeline: this.timeline.rowsFrom(0),
      recentErrors: this.recentErrors.list(),
      ledger: this.ledger.serialize(),
      notices: [...this.notices],
      connections: Object.fromEntries(this.connections),
      staleConnectionRetries: this.staleConnectionRetries,
      exemplars: this.exemplars.serialize(),
    };
  }

  /** The one workload's success latency: the run's success slice (empty when nothing succeeded). */
  private successLatency(): Histogram | undefined {
    return this.byOutcome[this.outcomes.keys.indexOf(OUTCOME_SUCCESS)]?.latency;
  }

  private onlyWorkloadSuccess(byOutcome: Readonly<Record<string, EncodedPair>>): Record<string, string> {
    const success = byOutcome[OUTCOME_SUCCESS];
    return success === undefined ? {} : { [this.slices.workloads[0]!]: success.latency };
  }

  /** Per tag and per selection, when the recorder has tags and selections (absent otherwise). */
  private tagAndSelectorData(
    keys: readonly string[],
    encode: ((histogram: Histogram) => string) | undefined,
    encodeOrDefer: (histogram: Histogram) => string,
  ): Pick<RecordedData, 'byTag' | 'bySelector'> {
    const serialize = (stats: DimensionStats): DimensionData => stats.serialize(keys, encode);
    const cells = this.cells.filter((cell): cell is RecordedCell => cell !== undefined);
    const byTag = this.slices.byTag(cells, serialize);
    const bySelector = this.slices.bySelector(serialize, encodeOrDefer);
    return {
      ...(Object.keys(byTag).length > 0 ? { byTag } : {}),
      ...(Object.keys(bySelector).length > 0 ? { bySelector } : {}),
    };
  }

  private clientRow(id: string, index: number, nowMs: number): LiveClientRow {
    const c = this.ledger.client(index)!;
    return {
      id,
      sent: c.sent,
      admitted: c.admitted,
      refused: c.refused,
      admittedInWindow: this.ledger.admittedInWindow(index, nowMs),
      lastRetryAfterS: c.lastRetryAfterS >= 0 ? c.lastRetryAfterS : null,
      lastRetryAfterAtMs: c.lastRetryAfterS >= 0 ? c.lastRetryAfterAtMs : null,
    };
  }
}

/** Add `count` skips for `reason`; past MAX_SKIP_REASONS distinct reasons, they count as "other". */
function countSkip(skipped: Map<string, number>, reason: string, count: number): void {
  const seen = skipped.get(reason);
  if (seen !== undefined) skipped.set(reason, seen + count);
  else if (skipped.size < MAX_SKIP_REASONS) skipped.set(reason, count);
  else skipped.set('other', (skipped.get('other') ?? 0) + count);
}

function throwError(error: Error): never {
  throw error;
}
