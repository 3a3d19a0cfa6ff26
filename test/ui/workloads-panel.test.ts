import { describe, expect, it } from 'vitest';
import type { WorkloadInfo } from '../../src/contract/live-view.ts';
import { headerLines } from '../../src/ui/dashboard/header-panel.ts';
import { renderRunFrame } from '../../src/ui/dashboard/run-frame.ts';
import { replayLine, workloadsLines } from '../../src/ui/dashboard/workloads-panel.ts';
import { frameToTags, frameToText, lineText } from '../../src/ui/text/styled.ts';
import { HEADER, model, snapshot, WORKLOADS_HEADER, workloadRow, workloadsModel } from '../support/live-fixtures.ts';

const texts = (lines: readonly (readonly { text: string }[])[]): string[] =>
  lines.map((line) => line.map((s) => s.text).join(''));

describe('the workloads panel', () => {
  it('renders a row per workload and the replay’s progress at 80×24', () => {
    const text = frameToText(renderRunFrame(workloadsModel(), { width: 80, height: 24 }));
    expect(text.split('\n').slice(12, 20).join('\n')).toBe(
      [
        '┌─ workloads · 3 of 3 playing · offered vs achieved ───────────────────────────┐',
        '│ workload           offered/s achieved/s    p99 lag p99 errors   429  goodput │',
        '│ browse rate 40/s        40.0       39.0    180    1.40      4     6      385 │',
        '│ orders concurrenc…         –       21.5    180       –      0     0      310 │',
        '│ recorded replay ×2      21.0       20.0    420    1.40      4     6      200 │',
        '│  ↳ rec.jsonl ×2: sent 225 of 228 due · 57% of 400 calls                      │',
        '└──────────────────────────────────────────────────────────────────────────────┘',
        '┌─ throughput req/s · last 12s ────────┐┌─ latency ms p50 / p99 · last 12s ────┐',
      ].join('\n'),
    );
  });

  it('shows p50 when there is room, and drops columns from the least telling when narrow', () => {
    const heads = (width: number): string =>
      texts(workloadsLines(workloadsModel(), width, 10))[0]!
        .trim()
        .split(/ +/)
        .join(' ');
    expect(heads(118)).toBe('workload offered/s achieved/s p50 p99 lag p99 errors 429 goodput');
    expect(heads(78)).toBe('workload offered/s achieved/s p99 lag p99 errors 429 goodput');
    expect(heads(56)).toBe('workload offered/s achieved/s p99 errors');
  });

  it('dims a workload not started yet, and says how many play', () => {
    const m = workloadsModel({
      snapshot: snapshot({ elapsedMs: 500, workloads: [workloadRow('browse'), workloadRow('orders')] }),
      gauges: { offeredPerS: [40, 0, 0], replayReleased: [0, 0, 0], inFlight: 2 },
    });
    const text = frameToText(renderRunFrame(m, { width: 80, height: 24 }));
    expect(text).toContain('workloads · 2 of 3 playing');
    const tags = frameToTags(renderRunFrame(m, { width: 80, height: 24 }), true);
    // a workload without a row yet shows zeros and dashes, dimmed
    expect(tags).toMatch(/\{gray-fg\}recorded replay ×2 +0\.0 +0\.0 +– +– +0 +0 +0\{\/gray-fg\}/);
    expect(tags).toMatch(/\{gray-fg\} ↳ rec\.jsonl ×2: sent 0 of 0 due · 0% of 400 calls +\{\/gray-fg\}/);
  });

  const replay = (overrides: Partial<NonNullable<WorkloadInfo['replay']>>): WorkloadInfo => ({
    ...WORKLOADS_HEADER.workloads![2]!,
    replay: { ...WORKLOADS_HEADER.workloads![2]!.replay!, ...overrides },
  });
  it.each([
    ['once through its window', {}, 228, 0, 'sent 228 of 228 due · 57% of 400 calls'],
    ['with calls skipped', {}, 228, 3, 'sent 225 of 228 due · 57% of 400 calls'],
    ['capped by -n', { maxCalls: 100 }, 228, 0, 'sent 228 of 228 due · 100% of 100 calls'],
    ['looping: the pass it is on', { loop: true }, 900, 0, 'sent 900 of 900 due · pass 3 of 400 calls'],
    ['before its start', {}, 0, 0, 'sent 0 of 0 due · 0% of 400 calls'],
  ] as const)('a replay’s progress %s', (_, settings, released, skipped, expected) => {
    const line = lineText(replayLine(replay(settings), workloadRow('recorded', { skipped }), released, 80));
    expect(line).toHaveLength(80);
    expect(line.trim()).toBe(`↳ rec.jsonl ×2: ${expected}`);
  });

  it('is absent with one workload of generated load: the dashboard of a one-workload run is today’s', () => {
    const one = {
      ...HEADER,
      workloads: [{ name: 'default', load: 'rate 60/s', open: true, startMs: 0, endMs: 30_000 }],
    };
    for (const size of [
      { width: 80, height: 24 },
      { width: 120, height: 40 },
    ]) {
      const frame = frameToText(renderRunFrame(model({ header: one }), size));
      expect(frame).toBe(frameToText(renderRunFrame(model(), size)));
      expect(frame).not.toContain('workloads');
    }
  });

  it('shows a lone replay workload’s progress', () => {
    const header = { ...WORKLOADS_HEADER, workloads: [WORKLOADS_HEADER.workloads![2]!] };
    const m = workloadsModel({ header, gauges: { offeredPerS: [21], replayReleased: [228], inFlight: 1 } });
    const text = frameToText(renderRunFrame(m, { width: 80, height: 24 }));
    expect(text).toContain('workloads · 1 of 1 playing');
    expect(text).toContain('↳ rec.jsonl ×2: sent 225 of 228 due · 57% of 400 calls');
  });

  it('explains the panel in the help overlay only when it is shown', () => {
    const help = (m: ReturnType<typeof model>): string =>
      frameToText(renderRunFrame({ ...m, help: true }, { width: 80, height: 24 }));
    expect(help(workloadsModel())).toMatch(/workloads {3}offered\/s its schedule asks now; achieved\/s in/);
    expect(help(model())).not.toContain('offered/s');
  });

  it('says which threshold stops the run, in place of the result line', () => {
    const reason = 'threshold error_rate{workload:orders} < 1% failed 2.1 s into the run';
    const lines = headerLines(workloadsModel({ stopReason: reason }), 100);
    expect(lineText(lines[2]!)).toBe(` ABORTING  ${reason}`);
    expect(frameToTags([lines[2]!], true)).toContain('{inverse} ABORTING {/inverse}');
  });

  it('never lets a workload’s or a recording’s name reach the terminal raw', () => {
    const hostile = '\u001b]0;pwned\u0007\u001b[2J{red-fg}x{/red-fg}\u009b1m\r\n日本😀';
    const workloads = WORKLOADS_HEADER.workloads!.map((w) => ({
      ...w,
      name: `${w.name}${hostile}`,
      load: `${w.load}${hostile}`,
      ...(w.replay === undefined ? {} : { replay: { ...w.replay, fileName: hostile } }),
    }));
    const m = workloadsModel({
      header: { ...WORKLOADS_HEADER, workloads },
      snapshot: snapshot({ workloads: workloads.map((w) => workloadRow(w.name)) }),
      stopReason: `threshold p99{workload:${hostile}} < 1ms failed`,
    });
    for (const size of [
      { width: 80, height: 24 },
      { width: 160, height: 48 },
    ]) {
      const lines = renderRunFrame(m, size);
      const tags = frameToTags(lines, true);
      // eslint-disable-next-line no-control-regex
      expect(tags).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
      expect(tags).not.toContain('{red-fg}x');
      for (const line of lines) expect(lineText(line)).toHaveLength(size.width);
    }
  });
});
