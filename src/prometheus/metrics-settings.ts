/**
 * What `--metrics-listen` and `--metrics-buckets` may be: the listen address and the default bucket
 * bounds. Apart from the endpoint and the snapshot so that the CLI's flags read them at start-up
 * without loading either (or the histograms behind them).
 */

/** A host and port to listen on (`--metrics-listen`). */
export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

/** Bucket bounds (ms) suited to API latencies: the default of `--metrics-buckets`. */
export const DEFAULT_METRICS_BUCKETS_MS: readonly number[] = [
  1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000,
];

/** `HOST:PORT`, `[IPv6]:PORT` or `PORT` (127.0.0.1); null when it is none of these. */
export function parseListenAddress(text: string): ListenAddress | null {
  const match = /^(?:(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]*)):)?(\d{1,5})$/.exec(text.trim());
  if (match === null) return null;
  const port = Number(match[3]);
  if (port < 1 || port > 65535) return null;
  const host = match[1] ?? (match[2] === undefined || match[2] === '' ? '127.0.0.1' : match[2]);
  return { host, port };
}
