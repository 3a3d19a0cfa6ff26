/**
 * Exemplars on the Prometheus endpoint, for tests: a server that records every request's
 * traceparent and delays a share of the calls by an amount it draws itself (so a test knows which
 * requests were slow and why), and a reader of the exemplars in an OpenMetrics scrape.
 */
import type { ServerResponse } from 'node:http';
import { createRandom } from '../../src/util/random.ts';
import { sendJson, startScriptedServer, type SeenRequest, type TestServer } from './http-server.ts';

/** What Prometheus sends (its default scrape protocols, OpenMetrics first). */
export const PROMETHEUS_ACCEPT =
  'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';

/** A traced server: its requests, and the delay (ms) it gave each API call, by `traceparent`. */
export interface TracedServer {
  readonly server: TestServer;
  readonly delaysMs: ReadonlyMap<string, number>;
}

/**
 * Tokens at `/auth.token`; every other method answers success, a third of the calls after
 * 150-300 ms (seeded), the rest at once.
 */
export async function startTracedServer(seed = 99): Promise<TracedServer> {
  const random = createRandom(seed);
  const delaysMs = new Map<string, number>();
  const server = await startScriptedServer((req: SeenRequest, res: ServerResponse) => {
    if (req.url.endsWith('/auth.token'))
      return sendJson(res, 200, { status: 'success', data: { access_token: 'tok', expires_in: 3600 } });
    const delayMs = random() < 1 / 3 ? 150 + Math.floor(random() * 150) : 0;
    delaysMs.set(String(req.headers.traceparent), delayMs);
    setTimeout(() => sendJson(res, 200, { status: 'success', data: {} }), delayMs);
  });
  return { server, delaysMs };
}

/** One bucket line's exemplar. */
export interface ScrapedExemplar {
  /** The histogram family, e.g. rpcload_request_latency_seconds. */
  readonly family: string;
  /** The bucket's `le` (Infinity for +Inf) and the bound below it (0 for the first). */
  readonly le: number;
  readonly below: number;
  readonly labels: string;
  readonly traceId: string;
  readonly spanId: string;
  /** Seconds. */
  readonly value: number;
  /** Epoch seconds. */
  readonly timestampS: number;
}

const EXEMPLAR_LINE =
  /^(rpcload_\w+)_bucket\{(.*)\} \d+ # \{trace_id="([0-9a-f]{32})",span_id="([0-9a-f]{16})"\} ([0-9.e+-]+) (\d+(?:\.\d+)?)$/;

/** Every exemplar of an OpenMetrics scrape; throws on a line with ` # ` that is not a well-formed bucket exemplar. */
export function parseExemplars(text: string): ScrapedExemplar[] {
  const out: ScrapedExemplar[] = [];
  const previousLe = new Map<string, number>();
  for (const line of text.split('\n')) {
    const bucket = /^(rpcload_\w+)_bucket\{([^}]*)\} /.exec(line);
    let below = 0;
    let le = 0;
    if (bucket !== null) {
      const series = `${bucket[1]}{${bucket[2]!.replace(/(^|,)le="[^"]*"/, '')}}`;
      const bound = /(?:^|,)le="([^"]+)"/.exec(bucket[2]!)![1]!;
      le = bound === '+Inf' ? Infinity : Number(bound);
      below = previousLe.get(series) ?? 0;
      previousLe.set(series, le);
    }
    if (line.startsWith('#') || !line.includes(' # ')) continue;
    const m = EXEMPLAR_LINE.exec(line);
    if (m === null || bucket === null) throw new Error(`not a bucket line with a well-formed exemplar: ${line}`);
    out.push({
      family: m[1]!,
      le,
      below,
      labels: m[2]!,
      traceId: m[3]!,
      spanId: m[4]!,
      value: Number(m[5]),
      timestampS: Number(m[6]),
    });
  }
  return out;
}

/** An OpenMetrics answer's samples in the Prometheus text format's terms: exemplars and `# EOF` dropped. */
export function withoutExemplars(openMetrics: string): string {
  return openMetrics
    .split('\n')
    .filter((line) => line !== '# EOF')
    .map((line) => (line.startsWith('#') ? line : line.replace(/ # \{.*$/, '')))
    .join('\n');
}
