/**
 * When to refresh an access token, from the `expires_in` the server gave: shared by the load
 * driver and the verifier, so neither can fall into a refresh storm. A lifetime at or under the
 * refresh margin used to mean "refresh now" on every request; an absurd one (1e12 s) overflowed
 * the timer into a 1 ms loop. Both are plain numbers here, decided once.
 */

/** A client never asks for a new token more often than this. */
export const MIN_REFRESH_INTERVAL_MS = 1000;
/** Lifetimes beyond this (a week) are treated as this: nothing rpcload runs lasts longer. */
export const MAX_TOKEN_LIFETIME_S = 7 * 24 * 3600;
/** Tokens living less than this are reported: they expire faster than they can be used. */
export const SHORT_TOKEN_LIFETIME_S = 5;

/**
 * ms after a token's receipt at which to fetch the next one: `marginS` before it expires (but not
 * later than 80 % of its lifetime, nor sooner than a quarter of it); a lifetime within the margin
 * is refreshed at its half. Never sooner than MIN_REFRESH_INTERVAL_MS, so a server issuing 0.1 s
 * tokens gets one token request per second per client, not a storm.
 */
export function refreshDelayMs(expiresInS: number, marginS: number): number {
  const lifetimeMs = Math.min(expiresInS, MAX_TOKEN_LIFETIME_S) * 1000;
  const delayMs =
    lifetimeMs <= marginS * 1000
      ? lifetimeMs * 0.5
      : Math.max(Math.min(lifetimeMs - marginS * 1000, lifetimeMs * 0.8), lifetimeMs * 0.25);
  return Math.max(MIN_REFRESH_INTERVAL_MS, delayMs);
}

/**
 * What a run's result should say about a lifetime, or null when it is unremarkable: absurdly long
 * (clamped), too short to use, or inside the refresh margin (refreshed at half its lifetime).
 */
export function tokenLifetimeNotice(expiresInS: number, marginS: number): string | null {
  if (expiresInS > MAX_TOKEN_LIFETIME_S)
    return `the server's tokens claim expires_in ${expiresInS} s: treated as ${MAX_TOKEN_LIFETIME_S} s (one week)`;
  if (expiresInS < SHORT_TOKEN_LIFETIME_S)
    return `the server's tokens expire after ${expiresInS} s, faster than they can be used: each client refreshes at most once per ${MIN_REFRESH_INTERVAL_MS / 1000} s, so requests in between may be refused as invalid_token`;
  if (expiresInS <= marginS)
    return `the server's tokens expire after ${expiresInS} s, within the ${marginS} s refresh margin: refreshed at half their lifetime instead`;
  return null;
}

/** What a run's result says about an `expires_in` that is no positive number of seconds (0, -5, "soon"). */
export function unusableLifetimeNotice(expiresIn: string): string {
  return `the server's tokens claim expires_in ${expiresIn}, not a positive number of seconds: ignored (a client fetches a new token when one is refused as invalid_token)`;
}
