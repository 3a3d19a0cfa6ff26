/**
 * The reference server's service-capacity model: `workers` servers behind one FIFO queue, each
 * busy for a fixed service time per API call, so the server sustains exactly
 * `workers × 1000 / serviceMs` calls per second and latency climbs past that rate. It keeps only
 * each worker's next free instant (virtual time): a late timer never lowers the capacity, and
 * waiting costs no CPU, so the knee is where the configuration says even on a loaded machine.
 * With a queue bound, a call that would wait longer than `maxQueueMs` is shed at once (503
 * `server_busy`), the way a server with admission control degrades.
 */
import { DEFAULT_CAPACITY_WORKERS } from './defaults.ts';

/** The model's settings (see ServerOptions.capacity). */
export interface ServiceCapacitySettings {
  /** Sustained API calls per second. */
  readonly ratePerS: number;
  /** Parallel servers; the service time per call is workers × 1000 / ratePerS ms. Default 4. */
  readonly workers?: number;
  /** Shed calls that would queue longer than this (ms); null or absent = an unbounded queue. */
  readonly maxQueueMs?: number | null;
}

/** What the model decides for one call arriving now. */
export type ServiceDecision = { readonly kind: 'serve'; readonly delayMs: number } | { readonly kind: 'shed' };

export class ServiceCapacity {
  readonly #serviceMs: number;
  readonly #maxQueueMs: number;
  /** When each worker is next free (ms on the server's clock). */
  readonly #freeAtMs: number[];

  constructor(settings: ServiceCapacitySettings) {
    const workers = settings.workers ?? DEFAULT_CAPACITY_WORKERS;
    this.#serviceMs = (workers * 1000) / settings.ratePerS;
    this.#maxQueueMs = settings.maxQueueMs ?? Number.POSITIVE_INFINITY;
    this.#freeAtMs = new Array<number>(workers).fill(Number.NEGATIVE_INFINITY);
  }

  /** Service time of one call (ms). */
  get serviceMs(): number {
    return this.#serviceMs;
  }

  /**
   * Queue a call arriving at `nowMs` behind the earlier ones: it starts on the worker free
   * soonest and its reply is due after its wait plus the service time; or it is shed when the
   * wait would exceed the queue bound.
   */
  admit(nowMs: number): ServiceDecision {
    let soonest = 0;
    for (let i = 1; i < this.#freeAtMs.length; i++) if (this.#freeAtMs[i]! < this.#freeAtMs[soonest]!) soonest = i;
    const startMs = Math.max(nowMs, this.#freeAtMs[soonest]!);
    if (startMs - nowMs > this.#maxQueueMs) return { kind: 'shed' };
    this.#freeAtMs[soonest] = startMs + this.#serviceMs;
    return { kind: 'serve', delayMs: startMs + this.#serviceMs - nowMs };
  }
}

/** A problem with the settings, or null (checked with the server's other options). */
export function serviceCapacityProblem(settings: ServiceCapacitySettings): string | null {
  const workers = settings.workers ?? DEFAULT_CAPACITY_WORKERS;
  if (!(Number.isFinite(settings.ratePerS) && settings.ratePerS > 0))
    return `capacity.ratePerS must be a positive number, found ${settings.ratePerS}`;
  if (!(Number.isInteger(workers) && workers >= 1 && workers <= 10_000))
    return `capacity.workers must be an integer 1–10,000, found ${workers}`;
  const queue = settings.maxQueueMs;
  if (queue !== undefined && queue !== null && !(Number.isFinite(queue) && queue >= 0))
    return `capacity.maxQueueMs must be a non-negative number, found ${queue}`;
  return null;
}
