/** The `--metrics-*` flags `run` and `capacity` share: declared once, resolved into MetricsOptions. */
import { InvalidArgumentError, type Command } from 'commander';
import type { MetricsOptions } from '../prometheus/metrics-endpoint.ts';
import { DEFAULT_METRICS_BUCKETS_MS, parseListenAddress, type ListenAddress } from '../prometheus/metrics-settings.ts';
import { parseDurationMs } from '../util/duration.ts';
import { RpcloadError } from '../errors.ts';
import { durationMs, nonNegativeInt } from './parsers.ts';

export interface MetricsFlags {
  metricsListen?: ListenAddress;
  metricsBuckets?: number[];
  metricsClients?: number;
  metricsLinger?: number;
  metricsTag?: string[];
}

function listenAddress(value: string): ListenAddress {
  const address = parseListenAddress(value);
  if (address === null)
    throw new InvalidArgumentError(`expected HOST:PORT or PORT like 127.0.0.1:9464, found ${JSON.stringify(value)}`);
  return address;
}

/** `1,5,10,250ms,1s`: bare numbers are ms; ascending, positive. */
function bucketList(value: string): number[] {
  const bounds = value.split(',').map((part) => {
    const text = part.trim();
    return /^\d+(\.\d+)?$/.test(text) ? Number(text) : parseDurationMs(text);
  });
  const valid = bounds.every((ms, i) => ms !== undefined && ms > 0 && (i === 0 || ms > bounds[i - 1]!));
  if (!valid || bounds.length === 0)
    throw new InvalidArgumentError(
      `expected ascending bucket bounds in ms like 5,10,25,100,1000 (or 250ms,1s), found ${JSON.stringify(value)}`,
    );
  return bounds as number[];
}

export function addMetricsOptions(command: Command): Command {
  return command
    .option(
      '--metrics-listen <host:port>',
      'serve live Prometheus metrics at http://HOST:PORT/metrics (a bare port listens on 127.0.0.1)',
      listenAddress,
    )
    .option(
      '--metrics-buckets <ms,…>',
      `latency histogram bucket bounds in ms (default ${DEFAULT_METRICS_BUCKETS_MS.join(',')})`,
      bucketList,
    )
    .option(
      '--metrics-clients <n>',
      'also label per-client counters for the first N client IDs (the rest as "other"; default 0)',
      nonNegativeInt,
    )
    .option(
      '--metrics-linger <duration>',
      'keep serving the final metrics this long after the result file is written (e.g. 15s)',
      durationMs,
    )
    .option(
      '--metrics-tag <key>',
      'also label the request series with this step tag, as tag_KEY (repeatable, at most 4)',
      (value: string, before: string[] | undefined) => [...(before ?? []), value],
    );
}

/** The endpoint's options; null without `--metrics-listen` (the other flags then need it). */
export function metricsOptionsOf(flags: MetricsFlags): MetricsOptions | null {
  if (flags.metricsListen === undefined) {
    const stray = (['metricsBuckets', 'metricsClients', 'metricsLinger', 'metricsTag'] as const).find(
      (key) => flags[key] !== undefined,
    );
    if (stray !== undefined)
      throw new RpcloadError(
        'bad_flag',
        `--${stray.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: needs --metrics-listen`,
      );
    return null;
  }
  return {
    listen: flags.metricsListen,
    bucketsMs: flags.metricsBuckets ?? DEFAULT_METRICS_BUCKETS_MS,
    clients: flags.metricsClients ?? 0,
    lingerMs: flags.metricsLinger ?? 0,
    ...(flags.metricsTag === undefined ? {} : { tags: [...new Set(flags.metricsTag)] }),
  };
}
