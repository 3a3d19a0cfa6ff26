/**
 * The end-of-run summary of a run with workloads: a real run of a rate workload beside a replay
 * (reference server in process, 2 s), its summary's workload table and replay lines set against
 * the result's own figures; the rate cells (pure) in a table.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult, WorkloadPhase } from '../../src/contract/result-schema.ts';
import { renderSummaryTable } from '../../src/results/summary-table.ts';
import { phaseRates } from '../../src/results/summary-workloads.ts';
import { formatMs } from '../../src/results/text-table.ts';
import { startServer } from '../../src/server/start-server.ts';
import { useTempDir } from '../support/temp-dir.ts';
import { runWorkloads, twoWorkloadProfile, WORKLOAD_SERVER } from '../support/workload-runs.ts';

const phase = (offeredPerS: number | null, achievedPerS: number): WorkloadPhase => ({ name: 'p', requests: 1, offeredPerS, achievedPerS });

describe('a workload’s offered and achieved rates, phase by phase', () => {
  it.each([
    ['no phase', [], '–', '–'],
    ['one rate phase', [phase(30, 29.96)], '30.0', '30.0'],
    ['a closed model', [phase(null, 412.34)], '–', '412.3'],
    ['a ramp of two phases', [phase(10, 9.9), phase(30, 29.5)], '10.0 → 30.0', '9.9 → 29.5'],
    ['more than three', [phase(1, 1), phase(2, 2), phase(3, 3), phase(4, 4)], '1.0 → 2.0 → 3.0 → …', '1.0 → 2.0 → 3.0 → …'],
  ] as const)('%s', (_, phases, offered, achieved) => {
    expect([phaseRates(phases, (p) => p.offeredPerS), phaseRates(phases, (p) => p.achievedPerS)]).toEqual([offered, achieved]);
  });
});

type Server = Awaited<ReturnType<typeof startServer>>;
const dir = useTempDir('rpcload-summary-workloads-');
let server: Server;
let result: RunResult;
let summary: string;

beforeAll(async () => {
  server = await startServer(WORKLOAD_SERVER);
  // 40 pings over 2 s by client-4 and client-5: 40/s at speed 2 for 1 s.
  const calls = Array.from({ length: 40 }, (_, i) => JSON.stringify({ t: i * 50, client: `client-${(i % 2) + 4}`, method: 'ping' }));
  const recording = join(dir, 'rec.jsonl');
  writeFileSync(recording, `${calls.join('\n')}\n`);
  const profile = twoWorkloadProfile();
  const [browse] = profile.workloads as unknown[];
  result = await runWorkloads(server.url, {
    ...profile,
    workloads: [browse, { name: 'recorded', replay: { file: recording, speed: 2 } }],
    thresholds: ['p99{workload:browse} < 5s'],
  });
  summary = renderSummaryTable(result, { color: false });
}, 30_000);
afterAll(() => server.close());

describe('the summary of a run with a rate workload and a replay', () => {
  it('has a row per workload: kind, offered/s, achieved/s, p50, p99, errors, 429s, goodput', () => {
    const rows = summary.split('\n').filter((line) => /^(workload|browse|recorded) /.test(line));
    expect(rows[0]!.split(/\s+/)).toEqual(['workload', 'kind', 'offered/s', 'achieved/s', 'p50', 'ms', 'p99', 'ms', 'errors', '429', 'goodput']);
    for (const [name, kind] of [
      ['browse', 'rate'],
      ['recorded', 'replay'],
    ] as const) {
      const w = result.byWorkload![name]!;
      const cells = rows.find((line) => line.startsWith(`${name} `))!.split(/\s+/);
      const [offered, achieved] = [w.phases[0]!.offeredPerS!.toFixed(1), w.phases[0]!.achievedPerS.toFixed(1)];
      // Goodput over the workload's own phase, as its achieved rate is: every request succeeded, so the two agree.
      const goodput = `${(w.goodput!.requests / (w.phases[0]!.requests / w.phases[0]!.achievedPerS)).toFixed(1)}/s`;
      expect(w.goodput!.requests).toBe(w.requests);
      expect(cells).toEqual([name, kind, offered, achieved, formatMs(w.latencyMs.p50), formatMs(w.latencyMs.p99), '0', '0', goodput]);
      expect(goodput).toBe(`${achieved}/s`);
    }
    expect(result.byWorkload!.browse!.phases[0]!.offeredPerS).toBe(30);
    expect(result.byWorkload!.recorded!.phases[0]!.offeredPerS).toBe(40);
  });

  it('has the replay’s facts: file, sent and not replayed, window, speed, passes', () => {
    const replay = result.byWorkload!.recorded!.replay!;
    expect(replay).toMatchObject({ file: 'rec.jsonl', sent: 40, callsInWindow: 40, speed: 2 });
    expect(replay.skipped).toEqual({});
    expect(summary).toContain(`replay          recorded: rec.jsonl: 40 sent of 40 calls in the window\n`);
    expect(summary).toContain('\n                          window 0 ms–end at 2×, 1 pass\n');
  });

  it('says which threshold stopped a run, and when', () => {
    const stop = { reason: 'threshold' as const, threshold: 'p99{workload:browse} < 1ms', atMs: 1234.5 };
    const text = renderSummaryTable({ ...result, run: { ...result.run, status: 'aborted', stop } }, { color: false });
    expect(text.split('\n').slice(0, 2)).toEqual([
      expect.stringMatching(/^rpcload run {2}shop {2}aborted {2}/),
      'stopped at 1.2 s: the abortOnFail threshold p99{workload:browse} < 1ms failed',
    ]);
    expect(summary).not.toContain('stopped at');
  });

  it('leaves the table out of a run with one workload', () => {
    const one = { ...result, byWorkload: { browse: result.byWorkload!.browse! } };
    expect(renderSummaryTable(one, { color: false })).not.toMatch(/^workload +kind/m);
  });
});
