/**
 * `rpcload capacity --metrics-listen`: the steps of a search add up on one endpoint — counters
 * never fall when a new step starts — and the step, its load and the bracket are gauges; after
 * the search the counts equal the result file's steps.
 */

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_METRICS_BUCKETS_MS } from '../../src/prometheus/metrics-snapshot.ts';
import { buildPlan } from '../../src/profile/build-plan.ts';
import { capacitySession } from '../../src/session/capacity/capacity-session.ts';
import { counterDecreases, freePort, scrape, sumBy, type Scrape } from '../support/prometheus-text.ts';
import { sleep } from '../support/server-helpers.ts';
import { useTempDir } from '../support/temp-dir.ts';

describe('rpcload capacity --metrics-listen', () => {
  it(
    'adds the steps up, never decreasing, with the step, its load and the bracket as gauges',
    { timeout: 60_000 },
    async () => {
      const port = await freePort();
      const plan = buildPlan(
        {
          name: 'capacity-metrics',
          server: { capacity: { rate: 200, workers: 2 } },
          clients: { pattern: 'client-{n}', count: 4 },
          scenarios: [{ steps: [{ method: 'ping' }] }],
          phases: [{ duration: '1s', rate: 1 }],
          capacity: { start: 10, warmUp: '1s', hold: '1s', confirm: '0s', maxSteps: 2, slo: ['p99 < 200ms'] },
        },
        { source: '' },
      );
      let ended = false;
      const session = capacitySession({
        plan,
        outPath: join(useTempDir('rpcload-capacity-metrics-'), 'capacity.json'),
        signal: new AbortController().signal,
        metrics: {
          listen: { host: '127.0.0.1', port },
          bucketsMs: DEFAULT_METRICS_BUCKETS_MS,
          clients: 0,
          lingerMs: 1000,
        },
      }).finally(() => (ended = true));
      const scrapes: Scrape[] = [];
      const deadline = Date.now() + 50_000;
      while (!ended && Date.now() < deadline) {
        const s = await scrape(`http://127.0.0.1:${port}/metrics`).catch(() => null);
        if (s !== null) scrapes.push(s);
        await sleep(150);
      }
      const { result, record, metricsClosed } = await session;
      scrapes.push(await scrape(`http://127.0.0.1:${port}/metrics`)); // the final figures, while it lingers
      await metricsClosed;
      // two steps (a step a loaded machine stalled is retried: then three)
      expect(record.steps.length).toBeGreaterThanOrEqual(2);
      const last = scrapes.at(-1)!;
      // every step's requests, by its phases (the hold phase and its warm-up)
      expect(sumBy(last, 'rpcload_requests_total', 'phase')).toEqual(
        Object.fromEntries(Object.entries(result.byPhase).map(([phase, stats]) => [phase, stats.requests])),
      );
      expect(sumBy(last, 'rpcload_requests_total')['']).toBe(result.summary.requests);
      expect(counterDecreases(scrapes)).toEqual([]);
      // the gauges followed the search: each step's index with its load
      const seen = new Map<number, number>();
      for (const s of scrapes) {
        const index = sumBy(s, 'rpcload_capacity_step_index')[''];
        const load = sumBy(s, 'rpcload_capacity_step_load')[''];
        if (index !== undefined && !Number.isNaN(index)) seen.set(index, load!);
      }
      expect(Object.fromEntries(seen)).toEqual(Object.fromEntries(record.steps.map((step) => [step.index, step.load])));
      expect(last.types.get('rpcload_capacity_bracket_low')).toBe('gauge');
      const [low] = record.bracket;
      expect(sumBy(last, 'rpcload_capacity_bracket_low')['']).toBe(low ?? Number.NaN);
    },
  );
});
