import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { goodputLatencyBoundMs, parseThreshold } from '../../src/profile/thresholds.ts';
import { renderSummaryTable } from '../../src/results/summary-table.ts';
import { sendJson, startScriptedServer, type TestServer } from '../support/http-server.ts';
import { runPlan, testPlan } from '../support/load-run.ts';

describe('goodputLatencyBoundMs', () => {
  it.each<[string[], number | null]>([
    [[], null],
    [['p99 < 250ms'], 250],
    [['p99 < 250ms', 'p50 <= 0.1s'], 100], // the tightest, in ms
    [['items.list:p99 < 10ms', 'service.p99 < 5ms', 'lag.p99 < 1ms', 'error_rate < 1%'], null], // not the SLO's latency lines
    [['p99 > 5ms'], null], // a lower bound is no SLO
  ])('%j → %s', (exprs, bound) => {
    expect(goodputLatencyBoundMs(exprs.map((expr) => parseThreshold(expr)))).toBe(bound);
  });
});

describe('goodput of a run', () => {
  let server: TestServer;
  let n = 0;
  beforeAll(async () => {
    // Every third call is slow (150 ms), every seventh fails: goodput counts the fast successes only.
    server = await startScriptedServer((req, res) => {
      if (req.url.endsWith('/auth.token'))
        return sendJson(res, 200, { status: 'success', data: { access_token: 't', expires_in: 3600 } });
      const i = n++;
      const reply = () =>
        i % 7 === 6
          ? sendJson(res, 400, { status: 'error', error: 'nope' })
          : sendJson(res, 200, { status: 'success', data: {} });
      if (i % 3 === 2) setTimeout(reply, 150);
      else reply();
    });
  });
  afterAll(() => server.close());

  it('counts the successes within the latency threshold, per second, in the summary and its table', async () => {
    const plan = testPlan(
      {
        scenarios: [{ steps: [{ method: 'ping' }] }],
        phases: [{ duration: '2s', rate: 50 }],
        thresholds: ['p99 < 100ms', 'error_rate < 50%'],
      },
      server.url,
    );
    const { result } = await runPlan(plan, server.url);
    const goodput = result.summary.goodput!;
    const successes = result.summary.outcomes.success!;
    expect(goodput.latencyBoundMs).toBe(100);
    // About 2/3 of the successes are fast (a busy machine may make a few more slow, never fewer).
    expect(goodput.requests).toBeLessThan(successes * 0.75);
    expect(goodput.requests).toBeGreaterThan(successes * 0.4);
    expect(goodput.perS).toBeCloseTo(goodput.requests / result.summary.durationS, 2);
    expect(renderSummaryTable(result, { color: false })).toMatch(
      new RegExp(`goodput\\s+${goodput.requests}\\s+\\(${goodput.perS.toFixed(1)}/s\\) succeeded within 100 ms`),
    );
  });
});
