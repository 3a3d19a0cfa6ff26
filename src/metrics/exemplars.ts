/**
 * Exemplars: the identities (W3C trace and span ids) and figures of a few requests per method that
 * explain the run's numbers — the N slowest, a sample of each outcome other than success (errors,
 * 429s, transport failures; N each), and one request per latency bucket. Memory is bounded by N,
 * the method's distinct outcomes (capped by the outcome table) and the bucket count, whatever the
 * run's length.
 *
 * Every choice is exactly mergeable, so worker threads, checkpoints and shards add up to what one
 * recorder would have kept: the N slowest overall are among each part's N slowest; the samples are
 * bottom-k samples — the requests with the smallest key, a uniform 32-bit value drawn per request
 * (the low word of its span id) — and the k smallest keys of a union are among each part's k
 * smallest; a bucket's exemplar is the bucket's bottom-1 sample.
 *
 * The hot path: `offer` compares a request's latency and key with the current thresholds and
 * allocates only when a request is kept (rarely, once a run is under way).
 */

import type { Exemplar } from '../contract/result-schema.ts';

/** Bucket upper bounds (ms) of the per-bucket exemplars; the last bucket is everything above. */
export const EXEMPLAR_BUCKETS_MS: readonly number[] = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000];

/** Exemplars kept per kind and method by default (the N slowest; N per outcome). */
export const DEFAULT_EXEMPLARS_PER_KIND = 10;

/** Why an exemplar was kept: among the slowest, a sample of its outcome, or its latency bucket's sample. */
export type ExemplarKind = 'slowest' | 'outcome' | 'bucket';

/** One kept request, as recorded data and the result file carry it (the result file's `Exemplar`). */
export type ExemplarData = Exemplar;

/** What a recorder hands in per request (the driver's Sample satisfies it). */
export interface ExemplarCandidate {
  readonly latencyUs: number;
  readonly serviceUs: number;
  readonly doneAtMs: number;
  readonly status: number;
  readonly clientIndex: number;
  readonly phaseIndex: number;
  /** The request's trace id (four 32-bit words), span id (two) and flags: bit 0 sampled, bit 1 sent. */
  readonly trace0?: number;
  readonly trace1?: number;
  readonly trace2?: number;
  readonly trace3?: number;
  readonly span0?: number;
  readonly span1?: number;
  readonly traceFlags?: number;
}

/** Flag bits of ExemplarCandidate.traceFlags. */
export const TRACE_SAMPLED = 1;
export const TRACE_SENT = 2;

/** A kept request, with what ranks it. */
interface Kept {
  readonly latencyUs: number;
  readonly key: number;
  readonly exemplar: ExemplarData;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
function hex32(word: number): string {
  return HEX[word >>> 24]! + HEX[(word >>> 16) & 0xff]! + HEX[(word >>> 8) & 0xff]! + HEX[word & 0xff]!;
}

/** The sampling key of an exemplar: the low word of its span id. */
function keyOf(exemplar: ExemplarData): number {
  return Number.parseInt(exemplar.spanId.slice(8), 16) >>> 0;
}

/** Index of the bucket of `latencyUs` in EXEMPLAR_BUCKETS_MS (its length for the bucket above the last bound). */
export function exemplarBucket(latencyUs: number): number {
  const ms = latencyUs / 1000;
  let i = 0;
  while (i < EXEMPLAR_BUCKETS_MS.length && ms > EXEMPLAR_BUCKETS_MS[i]!) i++;
  return i;
}

const round3 = (n: number): number => Math.round(n * 1000) / 1000;

/** Slowest first; among equal latencies, the smaller key first. */
const bySlowest = (a: Kept, b: Kept): number => b.latencyUs - a.latencyUs || a.key - b.key;
const byKey = (a: Kept, b: Kept): number => a.key - b.key || b.latencyUs - a.latencyUs;

/** One method's exemplars. */
class MethodExemplars {
  /** Slowest first, at most `perKind`. */
  slowest: Kept[] = [];
  readonly byOutcome = new Map<string, Kept[]>();
  readonly buckets: (Kept | undefined)[] = [];

  constructor(private readonly perKind: number) {}

  /** Whether a request of this latency and key would be among the slowest (ties go to the smaller key, as in a merge). */
  wouldBeSlowest(latencyUs: number, key: number): boolean {
    if (this.slowest.length < this.perKind) return true;
    const last = this.slowest[this.slowest.length - 1]!;
    return latencyUs > last.latencyUs || (latencyUs === last.latencyUs && key < last.key);
  }

  addSlowest(kept: Kept): void {
    const list = this.slowest;
    let i = list.length;
    while (i > 0 && bySlowest(kept, list[i - 1]!) < 0) i--;
    list.splice(i, 0, kept);
    if (list.length > this.perKind) list.pop();
  }

  /** Bottom-k by key: kept when the outcome has fewer than `perKind` or a larger key than this one. */
  wouldSample(outcome: string, key: number): boolean {
    const list = this.byOutcome.get(outcome);
    return list === undefined || list.length < this.perKind || key < list[list.length - 1]!.key;
  }

  addSample(outcome: string, kept: Kept): void {
    let list = this.byOutcome.get(outcome);
    if (list === undefined) this.byOutcome.set(outcome, (list = []));
    let i = list.length;
    while (i > 0 && byKey(kept, list[i - 1]!) < 0) i--;
    list.splice(i, 0, kept);
    if (list.length > this.perKind) list.pop();
  }

  /** Every kept request once, slowest first, with all the kinds it was kept for. */
  list(): ExemplarData[] {
    const kinds = new Map<ExemplarData, { kinds: Set<ExemplarKind>; bucketLeMs?: number | null }>();
    const mark = (kept: Kept | undefined, kind: ExemplarKind, bucketLeMs?: number | null): void => {
      if (kept === undefined) return;
      const entry = kinds.get(kept.exemplar) ?? { kinds: new Set<ExemplarKind>() };
      entry.kinds.add(kind);
      if (bucketLeMs !== undefined) entry.bucketLeMs = bucketLeMs;
      kinds.set(kept.exemplar, entry);
    };
    for (const kept of this.slowest) mark(kept, 'slowest');
    for (const list of this.byOutcome.values()) for (const kept of list) mark(kept, 'outcome');
    this.buckets.forEach((kept, i) => mark(kept, 'bucket', EXEMPLAR_BUCKETS_MS[i] ?? null));
    return [...kinds]
      .map(([exemplar, entry]) => {
        const { kinds: _kinds, bucketLeMs: _le, ...rest } = exemplar;
        return {
          ...rest,
          kinds: (['slowest', 'outcome', 'bucket'] as const).filter((k) => entry.kinds.has(k)),
          ...(entry.bucketLeMs !== undefined ? { bucketLeMs: entry.bucketLeMs } : {}),
        };
      })
      .sort((a, b) => b.latencyMs - a.latencyMs || a.spanId.localeCompare(b.spanId));
  }
}

/** The exemplars of a run's requests, per method. */
export class ExemplarReservoir {
  private readonly methods: (MethodExemplars | undefined)[] = [];

  constructor(
    private readonly names: {
      readonly methods: readonly string[];
      readonly phases: readonly string[];
      readonly clients: readonly string[];
    },
    private readonly perKind: number = DEFAULT_EXEMPLARS_PER_KIND,
  ) {}

  /**
   * A finished request of method `methodIndex` that ended with `outcome` (the recorder's key for it):
   * kept if it is among the slowest, its outcome's sample or its bucket's.
   */
  offer(methodIndex: number, c: ExemplarCandidate, outcome: string, success: boolean): void {
    if (this.perKind <= 0) return;
    const m = (this.methods[methodIndex] ??= new MethodExemplars(this.perKind));
    const key = (c.span1 ?? 0) >>> 0;
    // Ranked by whole µs, as a merge ranks the figures it reads back from ms with 3 decimals.
    const latencyUs = Math.round(c.latencyUs);
    let kept: Kept | null = null;
    if (m.wouldBeSlowest(latencyUs, key)) m.addSlowest((kept = this.keep(c, key, outcome)));
    if (!success && m.wouldSample(outcome, key)) m.addSample(outcome, (kept ??= this.keep(c, key, outcome)));
    const bucket = exemplarBucket(c.latencyUs);
    const inBucket = m.buckets[bucket];
    if (inBucket === undefined || key < inBucket.key) m.buckets[bucket] = kept ?? this.keep(c, key, outcome);
  }

  private keep(c: ExemplarCandidate, key: number, outcome: string): Kept {
    const flags = c.traceFlags ?? 0;
    return {
      latencyUs: Math.round(c.latencyUs),
      key,
      exemplar: {
        traceId: hex32(c.trace0 ?? 0) + hex32(c.trace1 ?? 0) + hex32(c.trace2 ?? 0) + hex32(c.trace3 ?? 0),
        spanId: hex32(c.span0 ?? 0) + hex32(c.span1 ?? 0),
        sent: (flags & TRACE_SENT) !== 0,
        sampled: (flags & TRACE_SAMPLED) !== 0,
        intendedStartMs: round3(c.doneAtMs - c.latencyUs / 1000),
        latencyMs: round3(c.latencyUs / 1000),
        serviceTimeMs: round3(c.serviceUs / 1000),
        outcome,
        status: c.status,
        client: this.names.clients[c.clientIndex] ?? '',
        phase: this.names.phases[c.phaseIndex] ?? '',
        kinds: [],
      },
    };
  }

  /** The kept exemplars by method name (methods without requests are absent). */
  serialize(): Record<string, ExemplarData[]> {
    const out: Record<string, ExemplarData[]> = {};
    this.methods.forEach((m, i) => {
      if (m !== undefined) out[this.names.methods[i]!] = m.list();
    });
    return out;
  }
}

/**
 * The exemplars several parts of one run kept (worker threads, shards), merged into what one
 * recorder would have kept: per method, the N slowest of the parts' slowest, the bottom-N sample
 * of each outcome, the bottom-1 of each bucket. `perKind` is N.
 */
export function mergeExemplars(
  parts: readonly (Readonly<Record<string, readonly ExemplarData[]>> | undefined)[],
  perKind: number = DEFAULT_EXEMPLARS_PER_KIND,
): Record<string, ExemplarData[]> {
  const byMethod = new Map<string, ExemplarData[]>();
  for (const part of parts)
    for (const [method, list] of Object.entries(part ?? {}))
      byMethod.set(method, [...(byMethod.get(method) ?? []), ...list]);
  const out: Record<string, ExemplarData[]> = {};
  for (const [method, list] of byMethod) {
    const m = new MethodExemplars(perKind);
    for (const exemplar of list) {
      const kept: Kept = { latencyUs: Math.round(exemplar.latencyMs * 1000), key: keyOf(exemplar), exemplar };
      if (exemplar.kinds.includes('slowest')) m.addSlowest(kept);
      if (exemplar.kinds.includes('outcome') && m.wouldSample(exemplar.outcome, kept.key))
        m.addSample(exemplar.outcome, kept);
      if (exemplar.kinds.includes('bucket')) {
        const bucket =
          exemplar.bucketLeMs == null ? EXEMPLAR_BUCKETS_MS.length : EXEMPLAR_BUCKETS_MS.indexOf(exemplar.bucketLeMs);
        const inBucket = m.buckets[bucket];
        if (bucket >= 0 && (inBucket === undefined || kept.key < inBucket.key)) m.buckets[bucket] = kept;
      }
    }
    out[method] = m.list();
  }
  return out;
}

/** Numbers kept per bucket: completion (ms since the run's origin), value (µs), trace id (four words), span id (two). */
const TRACED_SLOT = 8;

/** A request kept by LatestTracedRequests: when it ended, its figure (µs) and its ids. */
export interface TracedRequest {
  /** When it completed, ms since the run's origin. */
  readonly doneAtMs: number;
  /** Its latency or service time (µs), whichever the list is of. */
  readonly valueUs: number;
  readonly traceId: string;
  readonly spanId: string;
}

/**
 * The latest request that carried a trace context, per bucket of EXEMPLAR_BUCKETS_MS, by latency
 * and by service time: what the Prometheus endpoint attaches to its histogram buckets as
 * OpenMetrics exemplars (which keep the last exemplar of each bucket). One per phase × method
 * cell; a request is a flag test, two bucket look-ups and sixteen stores into preallocated
 * arrays, with no allocation. Ids become text only when a snapshot is read.
 */
export class LatestTracedRequests {
  private readonly latency = new Float64Array((EXEMPLAR_BUCKETS_MS.length + 1) * TRACED_SLOT).fill(Number.NaN);
  private readonly serviceTime = new Float64Array((EXEMPLAR_BUCKETS_MS.length + 1) * TRACED_SLOT).fill(Number.NaN);

  /** A finished request: kept as its buckets' latest when its traceparent was sent (none with `http.traceContext: "off"`). */
  offer(c: ExemplarCandidate): void {
    if (((c.traceFlags ?? 0) & TRACE_SENT) === 0) return;
    keepTraced(this.latency, exemplarBucket(c.latencyUs) * TRACED_SLOT, c.latencyUs, c);
    keepTraced(this.serviceTime, exemplarBucket(c.serviceUs) * TRACED_SLOT, c.serviceUs, c);
  }

  /** The kept requests by latency or by service time, one per bucket that has one, in bucket order. */
  list(which: 'latency' | 'serviceTime'): TracedRequest[] {
    const slots = which === 'latency' ? this.latency : this.serviceTime;
    const out: TracedRequest[] = [];
    for (let at = 0; at < slots.length; at += TRACED_SLOT) {
      if (Number.isNaN(slots[at]!)) continue;
      const word = (i: number): string => hex32(slots[at + 2 + i]!);
      out.push({
        doneAtMs: slots[at]!,
        valueUs: slots[at + 1]!,
        traceId: word(0) + word(1) + word(2) + word(3),
        spanId: word(4) + word(5),
      });
    }
    return out;
  }
}

function keepTraced(slots: Float64Array, at: number, valueUs: number, c: ExemplarCandidate): void {
  slots[at] = c.doneAtMs;
  slots[at + 1] = valueUs;
  slots[at + 2] = c.trace0 ?? 0;
  slots[at + 3] = c.trace1 ?? 0;
  slots[at + 4] = c.trace2 ?? 0;
  slots[at + 5] = c.trace3 ?? 0;
  slots[at + 6] = c.span0 ?? 0;
  slots[at + 7] = c.span1 ?? 0;
}
