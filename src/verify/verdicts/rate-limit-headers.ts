/**
 * Informational: the rate-limit headers some servers send beside Retry-After — the IETF
 * `RateLimit` / `RateLimit-Policy` fields (draft-ietf-httpapi-ratelimit-headers, both the
 * structured `q=/w=`, `r=/t=` form of recent drafts and the `limit=, remaining=, reset=` /
 * `RateLimit-Limit` forms of earlier ones) and the de-facto `X-RateLimit-*` — read leniently and
 * compared with what was observed. They never change a verdict.
 */
export type HeaderMap = Readonly<Record<string, string | string[] | undefined>>;

export interface AdvertisedLimits {
  readonly limit: number | null;
  readonly windowS: number | null;
  readonly remaining: number | null;
  /** Seconds until the reset (an epoch-seconds X-RateLimit-Reset converted). */
  readonly resetS: number | null;
  /** The header names these came from. */
  readonly sources: readonly string[];
}

function text(headers: HeaderMap, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** A numeric parameter `name=N` (or `name="N"`) anywhere in a header value. */
function param(value: string | undefined, names: readonly string[]): number | null {
  if (value === undefined) return null;
  for (const name of names) {
    const found = new RegExp(`(?:^|[\\s;,])${name}\\s*=\\s*"?(\\d+(?:\\.\\d+)?)`, 'i').exec(value);
    if (found) return Number(found[1]);
  }
  return null;
}

/** A bare leading integer (`100`, `100;w=10`). */
function leadingNumber(value: string | undefined): number | null {
  const found = value === undefined ? null : /^\s*(\d+)/.exec(value);
  return found ? Number(found[1]) : null;
}

/** What the response's rate-limit headers advertise; null when it has none. */
export function advertisedLimits(headers: HeaderMap, nowEpochS: number): AdvertisedLimits | null {
  const policy = text(headers, 'ratelimit-policy');
  const combined = text(headers, 'ratelimit');
  const sources = [
    'ratelimit-policy',
    'ratelimit',
    'ratelimit-limit',
    'ratelimit-remaining',
    'ratelimit-reset',
    'x-ratelimit-limit',
    'x-ratelimit-remaining',
    'x-ratelimit-reset',
  ].filter((name) => headers[name] !== undefined);
  if (sources.length === 0) return null;
  const first = (...values: (number | null)[]): number | null => values.find((v) => v !== null) ?? null;
  const xReset = leadingNumber(text(headers, 'x-ratelimit-reset'));
  return {
    limit: first(
      param(policy, ['q']),
      leadingNumber(policy),
      param(combined, ['limit']),
      leadingNumber(text(headers, 'ratelimit-limit')),
      leadingNumber(text(headers, 'x-ratelimit-limit')),
    ),
    windowS: param(policy, ['w']),
    remaining: first(
      param(combined, ['r', 'remaining']),
      leadingNumber(text(headers, 'ratelimit-remaining')),
      leadingNumber(text(headers, 'x-ratelimit-remaining')),
    ),
    resetS: first(
      param(combined, ['t', 'reset']),
      leadingNumber(text(headers, 'ratelimit-reset')),
      xReset !== null && xReset > 1e9 ? Math.max(0, xReset - nowEpochS) : xReset,
    ),
    sources,
  };
}

/**
 * Notes comparing the advertised figures with the contract and with what happened: on the last
 * admitted response before the refusal (remaining should be 0) and on the refusal (remaining 0,
 * reset ≈ Retry-After).
 */
export function rateLimitHeaderNotes(
  lastAdmitted: AdvertisedLimits | null,
  refusal: AdvertisedLimits | null,
  retryAfterS: number | null,
  contract: { readonly limit: number; readonly windowMs: number },
): string[] {
  const seen = refusal ?? lastAdmitted;
  if (seen === null) return [];
  const notes = [
    `rate-limit headers sent: ${[...new Set([...(lastAdmitted?.sources ?? []), ...(refusal?.sources ?? [])])].join(', ')}`,
  ];
  const agree = (ok: boolean): string => (ok ? 'agrees' : 'disagrees');
  const limit = refusal?.limit ?? lastAdmitted?.limit ?? null;
  if (limit !== null)
    notes.push(
      `advertised limit ${limit} ${agree(limit === contract.limit)} with the observed limit ${contract.limit}`,
    );
  const windowS = refusal?.windowS ?? lastAdmitted?.windowS ?? null;
  if (windowS !== null)
    notes.push(
      `advertised window ${windowS} s ${agree(windowS * 1000 === contract.windowMs)} with the contract's ${contract.windowMs / 1000} s`,
    );
  if (lastAdmitted?.remaining != null)
    notes.push(
      `remaining ${lastAdmitted.remaining} on the last admitted request ${agree(lastAdmitted.remaining === 0)} with the refusal that followed`,
    );
  if (refusal?.remaining != null)
    notes.push(`remaining ${refusal.remaining} on the refusal ${agree(refusal.remaining === 0)} with it`);
  if (refusal?.resetS != null && retryAfterS !== null) {
    notes.push(
      `advertised reset in ${refusal.resetS} s ${agree(Math.abs(refusal.resetS - retryAfterS) <= 1)} with Retry-After ${retryAfterS}`,
    );
  }
  return notes;
}
