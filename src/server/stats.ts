/** Server-side counters behind `stats()`: plain counts, memory grows with clients, not requests. */
import type { ServerStats } from './options.ts';

export class StatsRecorder {
  #requests = 0;
  #tokensIssued = 0;
  readonly #byClient = new Map<string, { admitted: number; refused: number }>();
  readonly #byStatus = new Map<number, number>();

  request(): void {
    this.#requests += 1;
  }

  tokenIssued(): void {
    this.#tokensIssued += 1;
  }

  /** A rate-limit verdict for a client. */
  decision(clientId: string, admitted: boolean): void {
    let counts = this.#byClient.get(clientId);
    if (counts === undefined) this.#byClient.set(clientId, (counts = { admitted: 0, refused: 0 }));
    if (admitted) counts.admitted += 1;
    else counts.refused += 1;
  }

  status(code: number): void {
    this.#byStatus.set(code, (this.#byStatus.get(code) ?? 0) + 1);
  }

  /** A detached copy (safe to keep, to compare, or to post to another thread). */
  snapshot(): ServerStats {
    return {
      requests: this.#requests,
      tokensIssued: this.#tokensIssued,
      // fromEntries defines own properties, so even a client called "__proto__" is just a key.
      byClient: Object.fromEntries([...this.#byClient].map(([id, counts]) => [id, { ...counts }])),
      byStatus: Object.fromEntries([...this.#byStatus].map(([code, count]) => [String(code), count])),
    };
  }
}
