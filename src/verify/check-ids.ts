/** The conformance check ids, in the order verify runs and reports them. */
export const CHECK_IDS = [
  'envelope',
  'auth.missing_token',
  'auth.invalid_token',
  'ratelimit.threshold',
  'ratelimit.response',
  'ratelimit.retry_after_honoured',
  'ratelimit.per_client',
  'ratelimit.all_methods',
  'ratelimit.concurrent_burst',
  'ratelimit.replicas',
  'ratelimit.store_outage',
  'ratelimit.restart',
  'payload.limit',
  'pagination',
  'tls',
] as const;
export type CheckId = (typeof CHECK_IDS)[number];

export function isCheckId(value: string): value is CheckId {
  return (CHECK_IDS as readonly string[]).includes(value);
}
