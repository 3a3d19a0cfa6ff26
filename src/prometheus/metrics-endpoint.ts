/**
 * The `--metrics-listen HOST:PORT` endpoint of `run` and `capacity`: an HTTP server answering
 * `GET /metrics` in the Prometheus text format, or in OpenMetrics with exemplars (trace ids on the
 * latency and service-time buckets) when the scraper's Accept prefers it, as Prometheus does
 * (404 for anything else). It is opened before any
 * load (a port in use is a one-line error, exit 2), follows the running load(s) — the steps of a
 * capacity search add up, so counters only grow — and closes after the result file is written,
 * optionally after a linger so Prometheus gets a last scrape of the final figures.
 */
import { createServer, type Server } from 'node:http';
import { RpcloadError } from '../errors.ts';
import { sumMetricsSnapshots, type MetricsReadOptions, type MetricsSnapshot } from './metrics-snapshot.ts';
import type { Plan } from '../profile/plan.ts';
import { planSteps } from '../profile/selection.ts';
import type { CapacityGauges, RunLabels } from './metrics-registry.ts';
import type { ListenAddress } from './metrics-settings.ts';

export { parseListenAddress, type ListenAddress } from './metrics-settings.ts';

/** `--metrics-listen` and its companions, as the CLI parsed them. */
export interface MetricsOptions {
  readonly listen: ListenAddress;
  /** Histogram bucket bounds, ascending ms. */
  readonly bucketsMs: readonly number[];
  /** Per-client series for the first N clients (0 = none). */
  readonly clients: number;
  /** Keep serving this long after the result file is written (ms). */
  readonly lingerMs: number;
  /** `--metrics-tag KEY`: step tags labelled on the request series (as `tag_KEY`); absent or empty: none. */
  readonly tags?: readonly string[];
}

/** What the endpoint reads its figures from: a running load's metrics, null until it has any. */
export type MetricsFeed = () => MetricsSnapshot | null;

export interface MetricsEndpoint {
  /** Follow this load from now on; the previous load's last figures are kept and added to its. */
  follow(feed: MetricsFeed): void;
  /** The capacity search's position (`capacity` only). */
  setCapacity(gauges: CapacityGauges): void;
  /** Close; with `linger`, after serving the final figures for the linger time (resolves when closed). */
  close(linger: boolean): Promise<void>;
}

/** The figures read for one scrape are reused by scrapes within this long: however often it is scraped, the load pays at most one read a second. */
const REFRESH_MS = 1000;

/** What a load of `plan` reads for the endpoint: the bounds, and the plan's first N client IDs (`--metrics-clients N`). */
export function metricsReadOptions(
  options: Pick<MetricsOptions, 'bucketsMs' | 'clients' | 'tags'> | null,
  plan: Plan,
): MetricsReadOptions | null {
  if (options === null) return null;
  const labelledClients = plan.clients.slice(0, options.clients).map((c) => c.id);
  return { bucketsMs: options.bucketsMs, labelledClients, ...(options.tags?.length ? { tagKeys: options.tags } : {}) };
}

/** At most this many `--metrics-tag` keys: each multiplies the request series by its values. */
export const MAX_METRICS_TAGS = 4;

/**
 * `--metrics-tag` keys checked against the plan: each must be a tag some step has (the error names
 * the known ones), at most MAX_METRICS_TAGS. A tag's values are the profile's, so the series stay
 * bounded by the plan's steps whatever the server answers.
 */
export function checkMetricsTags(tags: readonly string[] | undefined, plan: Plan): void {
  if (tags === undefined || tags.length === 0) return;
  const known = [...new Set(planSteps(plan).flatMap((s) => Object.keys(s.step.tags)))].sort();
  const unknown = tags.find((tag) => !known.includes(tag));
  if (unknown !== undefined)
    throw new RpcloadError(
      'bad_flag',
      `--metrics-tag ${unknown}: no step of the profile has this tag (${known.length === 0 ? 'no step has tags' : `known: ${known.join(', ')}`})`,
    );
  if (new Set(tags).size > MAX_METRICS_TAGS)
    throw new RpcloadError(
      'bad_flag',
      `--metrics-tag: at most ${MAX_METRICS_TAGS} tag keys (each multiplies the series)`,
    );
}

/** A finished load's gauges: zeros, its workloads still named. */
function gaugesAtRest(gauges: MetricsSnapshot['gauges']): MetricsSnapshot['gauges'] {
  const byWorkload = gauges.byWorkload.map((g) => ({
    workload: g.workload,
    offeredArrivalRate: 0,
    achievedRequestRate: 0,
  }));
  return { inFlight: 0, offeredArrivalRate: 0, achievedRequestRate: 0, byWorkload };
}

/** Open the endpoint; rejects with a one-line RpcloadError (exit 2) when the address cannot be listened on. */
export async function openMetricsEndpoint(
  options: MetricsOptions,
  labels: RunLabels,
  capacity = false,
): Promise<MetricsEndpoint> {
  // prom-client is loaded with the first endpoint, not at every CLI start: most runs serve none.
  const { createMetricsRegistry } = await import('./metrics-registry.ts');
  let finished: MetricsSnapshot | null = null;
  let feed: MetricsFeed | null = null;
  let cached: { atMs: number; snapshot: MetricsSnapshot | null } | null = null;
  let capacityGauges: CapacityGauges | null = null;
  /** Finished loads' figures plus the current one's (gauges are the current load's). */
  const read = (): MetricsSnapshot | null => {
    const current = feed?.() ?? null;
    return sumMetricsSnapshots(
      [...(finished === null ? [] : [finished]), ...(current === null ? [] : [current])],
      'last',
    );
  };
  const current = (): MetricsSnapshot | null => {
    const now = performance.now();
    if (cached === null || now - cached.atMs >= REFRESH_MS) cached = { atMs: now, snapshot: read() };
    return cached.snapshot;
  };
  let scrape: MetricsSnapshot | null = null;
  const sources = {
    snapshot: () => scrape,
    clientsCap: options.clients,
    tagKeys: options.tags ?? [],
    ...(capacity ? { capacity: () => capacityGauges } : {}),
  };
  const registries = {
    text: createMetricsRegistry(labels, sources),
    openMetrics: createMetricsRegistry(labels, { ...sources, openMetrics: true }),
  };
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: scrape /metrics\n');
      return;
    }
    // One snapshot per scrape: every metric of the answer shows the same moment.
    scrape = current();
    const registry = prefersOpenMetrics(req.headers.accept) ? registries.openMetrics : registries.text;
    registry
      .metrics()
      .then((text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text))
      .catch((err: unknown) => res.writeHead(500).end(`${String(err)}\n`));
  });
  server.keepAliveTimeout = 5000;
  await listen(server, options.listen);
  return {
    follow(next) {
      // The new load starts empty: until it reports, show what came before (with its gauges at rest).
      const before = read();
      finished = before === null ? null : { ...before, gauges: gaugesAtRest(before.gauges) };
      cached = null;
      feed = next;
    },
    setCapacity(gauges) {
      capacityGauges = gauges;
    },
    async close(linger) {
      cached = null;
      if (linger && options.lingerMs > 0) await new Promise((resolve) => setTimeout(resolve, options.lingerMs));
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** The media type of OpenMetrics' text format. */
const OPENMETRICS_TYPE = 'application/openmetrics-text';

/**
 * Whether an Accept header prefers OpenMetrics to the Prometheus text format: it names
 * `application/openmetrics-text` with a quality above zero and at least that of `text/plain` (or
 * a wildcard). Prometheus asks so by default; curl and browsers get the text format.
 */
export function prefersOpenMetrics(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  let openMetrics = 0;
  let text = 0;
  for (const range of accept.split(',')) {
    const [type = '', ...params] = range.split(';').map((p) => p.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!(q > 0)) continue;
    if (type === OPENMETRICS_TYPE) openMetrics = Math.max(openMetrics, q);
    else if (type === 'text/plain' || type === 'text/*' || type === '*/*') text = Math.max(text, q);
  }
  return openMetrics > 0 && openMetrics >= text;
}

/**
 * Run a session's `body` while the endpoint (if any) serves it. When the body succeeds, the
 * endpoint lingers in the background — `closed` resolves once it has closed, for the command to
 * await after it has reported — so the summary is not held back by the linger; when the body
 * fails, the endpoint closes at once.
 */
export async function whileServing<T>(
  endpoint: MetricsEndpoint | null,
  body: () => Promise<T>,
): Promise<{ value: T; closed: Promise<void> }> {
  let value: T;
  try {
    value = await body();
  } catch (err) {
    await endpoint?.close(false);
    throw err;
  }
  return { value, closed: endpoint === null ? Promise.resolve() : endpoint.close(true) };
}

function listen(server: Server, address: ListenAddress): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      const where = `${address.host}:${address.port}`;
      const why =
        err.code === 'EADDRINUSE'
          ? 'the port is in use'
          : err.code === 'EACCES'
            ? 'permission denied'
            : err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN'
              ? 'no such local address'
              : (err.code ?? err.message);
      reject(new RpcloadError('bad_flag', `--metrics-listen ${where}: cannot listen (${why})`));
    };
    server.once('error', onError);
    server.listen(address.port, address.host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}
