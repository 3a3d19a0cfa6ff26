/**
 * W3C trace context on the wire: a real server on 127.0.0.1 records the traceparent of every
 * request it sees (token requests included) and delays each API reply by an amount it draws itself;
 * the run's ids must be well formed and unique, a pagination walk must share its trace id, and the
 * result file's slowest exemplars must be requests the server saw, with the delays it injected.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { TraceIds, type SpanWords, type TraceWords } from '../../src/driver/trace-context.ts';
import { createRandom } from '../../src/util/random.ts';
import { sendJson, startScriptedServer, type SeenRequest, type TestServer } from '../support/http-server.ts';
import { runPlan, testPlan } from '../support/load-run.ts';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0([01])$/;

function drawIds(
  seed: number,
  stream: number,
  count: number,
  sampleRatio = 0.01,
): { traceparent: string; trace: TraceWords }[] {
  const ids = new TraceIds({ seed, stream, sampleRatio });
  return Array.from({ length: count }, () => {
    const trace: TraceWords = { trace0: 0, trace1: 0, trace2: 0, trace3: 0, traceSampled: false };
    const span: SpanWords = { span0: 0, span1: 0 };
    ids.nextTrace(trace);
    ids.nextSpan(span);
    return { traceparent: ids.traceparent(trace, span), trace };
  });
}

describe('trace ids', () => {
  it('are well formed, unique within and across streams, and the same for the same seed', () => {
    const a = drawIds(42, 0, 20_000);
    const b = drawIds(42, 1, 20_000); // worker 1 of the same run
    const c = drawIds(42, 65_536 * 2 + 1, 20_000); // shard 2, worker 1
    for (const { traceparent } of a) expect(traceparent).toMatch(TRACEPARENT);
    const traceIds = new Set([...a, ...b, ...c].map((x) => x.traceparent.slice(3, 35)));
    expect(traceIds.size).toBe(60_000);
    expect(new Set(a.map((x) => x.traceparent.slice(36, 52))).size).toBe(20_000);
    expect(drawIds(42, 0, 50).map((x) => x.traceparent)).toEqual(a.slice(0, 50).map((x) => x.traceparent));
    expect(drawIds(43, 0, 50).map((x) => x.traceparent)).not.toEqual(a.slice(0, 50).map((x) => x.traceparent));
  });

  it.each([
    [0, 0], // sampled flag never set
    [0.01, 0.01], // the default
    [0.5, 0.5],
    [1, 1], // every trace sampled
  ])('set the sampled flag on a share %d of traces', (ratio, expected) => {
    const drawn = drawIds(7, 0, 40_000, ratio);
    const share = drawn.filter((x) => x.trace.traceSampled).length / drawn.length;
    expect(share).toBeCloseTo(expected, 2);
    for (const x of drawn) expect(x.traceparent.endsWith(x.trace.traceSampled ? '-01' : '-00')).toBe(true);
  });
});

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const ITEMS = 25;
const PAGE = 10;

/**
 * Tokens, a paginated `items.list` (cursor = next offset) and a `slow` method that answers after
 * a delay the server draws itself (seeded), noting each request's delay.
 */
async function tracingServer(delays: Map<string, number>): Promise<TestServer> {
  const random = createRandom(99);
  return startScriptedServer((req: SeenRequest, res: ServerResponse) => {
    if (req.url.endsWith('/auth.token'))
      return sendJson(res, 200, { status: 'success', data: { access_token: 'tok', expires_in: 3600 } });
    if (req.url.endsWith('/items.list')) {
      const from = Number((JSON.parse(req.body) as { next?: string }).next ?? 0);
      const next = from + PAGE < ITEMS ? String(from + PAGE) : null;
      return sendJson(res, 200, {
        status: 'success',
        data: { items: Array.from({ length: Math.min(PAGE, ITEMS - from) }, (_, i) => from + i), next },
      });
    }
    // A third of the calls wait 150-300 ms, the rest answer at once: the slowest are the delayed ones, by far.
    const delayMs = random() < 1 / 3 ? 150 + Math.floor(random() * 150) : 0;
    delays.set(String(req.headers.traceparent), delayMs);
    setTimeout(() => sendJson(res, 200, { status: 'success', data: {} }), delayMs);
  });
}

describe('trace context on every request', () => {
  it('pages share a trace id, ids are unique, exemplars are requests the server saw with its delays', async () => {
    const delays = new Map<string, number>();
    server = await tracingServer(delays);
    const built = testPlan(
      {
        seed: 5,
        scenarios: [
          { name: 'walk', steps: [{ method: 'items.list', args: { filter: 'x' }, paginate: { maxPages: 5 } }] },
          { name: 'slow', steps: [{ method: 'slow' }] },
        ],
        phases: [{ duration: '2s', rate: 60 }],
        http: { traceSampleRatio: 0.25, tracestate: 'rpcload=test', traceBaggage: true },
      },
      server.url,
    );
    const plan = { ...built, trace: { ...built.trace, runId: 'run-7' } }; // as the run session sets it
    const { result } = await runPlan(plan, server.url);
    const api = server.seen.filter((r) => !r.url.endsWith('/auth.token'));
    const tokens = server.seen.filter((r) => r.url.endsWith('/auth.token'));
    expect(api.length).toBe(result.summary.requests);
    // Token requests: their own traces, marked as such.
    for (const t of tokens) {
      expect(String(t.headers.traceparent)).toMatch(TRACEPARENT);
      expect(t.headers['user-agent']).toMatch(/^rpcload\/\S+ token-request$/);
      expect(t.headers.baggage).toBe('rpcload.request=token,rpcload.run=run-7');
    }
    const parsed = api.map((r) => {
      const match = TRACEPARENT.exec(String(r.headers.traceparent))!;
      expect(match).not.toBeNull();
      expect(r.headers.tracestate).toBe('rpcload=test');
      expect(r.headers['user-agent']).toMatch(/^rpcload\/\S+$/);
      expect(r.headers.baggage).toBe('rpcload.run=run-7');
      return { traceId: match[1]!, spanId: match[2]!, sampled: match[3] === '1', body: r.body, url: r.url };
    });
    expect(new Set(parsed.map((p) => p.spanId)).size).toBe(parsed.length); // a span per request
    // Every walk is 3 pages (25 items by 10) under one trace id; a `slow` call is a trace of its own.
    const byTrace = new Map<string, typeof parsed>();
    for (const p of parsed) byTrace.set(p.traceId, [...(byTrace.get(p.traceId) ?? []), p]);
    for (const requests of byTrace.values()) {
      if (requests[0]!.url.endsWith('/slow')) expect(requests.length).toBe(1);
      else {
        expect(requests.length).toBeLessThanOrEqual(3);
        requests.forEach((r, page) =>
          expect(JSON.parse(r.body)).toEqual(page === 0 ? { filter: 'x' } : { filter: 'x', next: String(page * PAGE) }),
        );
        expect(new Set(requests.map((r) => r.sampled)).size).toBe(1); // the flag is the trace's
      }
    }
    const walks = [...byTrace.values()].filter((r) => r[0]!.url.endsWith('/items.list'));
    expect(walks.filter((w) => w.length === 3).length).toBeGreaterThan(10);
    // The slowest exemplars of `slow` are requests the server delayed, by what it says it waited.
    const slowest = result.exemplars!.slow!.filter((e) => e.kinds.includes('slowest'));
    expect(slowest.length).toBe(10);
    const sentDelays = [...delays.values()].sort((a, b) => b - a);
    for (const e of slowest) {
      const delayMs = delays.get(`00-${e.traceId}-${e.spanId}-0${e.sampled ? 1 : 0}`);
      expect(delayMs).toBeDefined();
      expect(e.sent).toBe(true);
      expect(e.serviceTimeMs).toBeGreaterThanOrEqual(delayMs! - 1); // timers may fire a hair early
      expect(delayMs).toBeGreaterThanOrEqual(150);
      expect(e.serviceTimeMs).toBeLessThan(delayMs! + 400); // a loaded machine's scheduling, not another delay
      expect(e.latencyMs).toBeGreaterThanOrEqual(e.serviceTimeMs);
    }
    // The ten slowest the run kept are among the longest delays the server injected.
    expect(slowest[slowest.length - 1]!.serviceTimeMs).toBeGreaterThanOrEqual(sentDelays[9]! - 400);
  });
});
