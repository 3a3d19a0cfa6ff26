/**
 * The rate-limit contract under test: at most `limit` requests per `windowMs` per client ID, and
 * what the load generator does when refused. The profile resolves it, the driver obeys it, the
 * recorder's ledger and the passive verdicts measure traffic against it.
 */
export interface RateLimitContract {
  readonly limit: number;
  readonly windowMs: number;
  /** honour: pause a refused client until its Retry-After has passed; ignore: keep sending. */
  readonly policy: 'honour' | 'ignore';
}
