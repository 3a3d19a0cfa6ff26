/**
 * Latency and service-time histograms plus outcome counters of one slice of the traffic:
 * overall, one method, phase, outcome or client. Counters are indexed by OutcomeTable index.
 */
import { encodeHistogram, recordUs, type Histogram } from './hdr.ts';
import { countsRecord, OUTCOME_SLOTS } from './outcome-table.ts';
import type { DimensionData } from './recorded-data.ts';

export class DimensionStats {
  readonly latency: Histogram;
  readonly serviceTime: Histogram;
  readonly outcomeCounts = new Float64Array(OUTCOME_SLOTS);
  requests = 0;
  /** Encoding is the costly part of a checkpoint; a slice without new requests reuses its last one. */
  private encoded: { readonly requests: number; readonly data: DimensionData } | undefined;

  constructor(createHistogram: () => Histogram) {
    this.latency = createHistogram();
    this.serviceTime = createHistogram();
  }

  record(latencyUs: number, serviceUs: number, outcomeIndex: number): void {
    this.requests++;
    this.outcomeCounts[outcomeIndex]!++;
    recordUs(this.latency, latencyUs);
    recordUs(this.serviceTime, serviceUs);
  }

  /** Empty again, histograms kept (a sum remade from its cells reuses its memory: see Recorder.sumCells). */
  reset(): void {
    this.requests = 0;
    this.outcomeCounts.fill(0);
    this.latency.reset();
    this.serviceTime.reset();
    this.encoded = undefined;
  }

  /** Add another slice's figures (exact: HDR addition), e.g. the cells of one method into the method's slice. */
  add(other: DimensionStats): void {
    this.requests += other.requests;
    for (let i = 0; i < OUTCOME_SLOTS; i++) this.outcomeCounts[i]! += other.outcomeCounts[i]!;
    this.latency.add(other.latency);
    this.serviceTime.add(other.serviceTime);
  }

  /**
   * The slice as data. `encode` (a deferred encoding: see Recorder.serializeGradually) replaces
   * encodeHistogram for a slice that changed since its last encoding, which is then not kept.
   */
  serialize(outcomeKeys: readonly string[], encode?: (histogram: Histogram) => string): DimensionData {
    if (this.encoded?.requests !== this.requests) {
      const data = {
        latency: (encode ?? encodeHistogram)(this.latency),
        serviceTime: (encode ?? encodeHistogram)(this.serviceTime),
        outcomes: countsRecord(outcomeKeys, this.outcomeCounts),
      };
      if (encode !== undefined) return data;
      this.encoded = { requests: this.requests, data };
    }
    return { ...this.encoded.data, outcomes: { ...this.encoded.data.outcomes } };
  }
}
