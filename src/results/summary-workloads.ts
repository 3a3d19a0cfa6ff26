/**
 * The end-of-run summary's workload parts: a table of the workloads when a run has several (what
 * each offered — arrivals, each one a scenario — and achieved — requests — per second in its
 * phases, its p50 and p99, errors, 429s and goodput over its phases), and a line per
 * replay with the recording's facts (file, window, speed, passes, calls sent and not sent by
 * reason, disorder).
 */
import { outcomeClass } from '../api/outcome.ts';
import type { ReplaySource } from '../contract/replay-source-schema.ts';
import type { RunResult, WorkloadPhase, WorkloadStats } from '../contract/result-schema.ts';
import { sanitizeText } from '../util/sanitize.ts';
import { formatCount, formatMs, renderTable } from './text-table.ts';

const safe = (text: string, max = 160): string => sanitizeText(text, max);

/** Phases shown one by one in a rate cell before the rest are left out. */
const MAX_PHASE_RATES = 3;

/** "30.0", "10.0 → 30.0" (per phase), "–" for a closed model's offer. */
export function phaseRates(phases: readonly WorkloadPhase[], read: (phase: WorkloadPhase) => number | null): string {
  if (phases.length === 0) return '–';
  const shown = phases.slice(0, MAX_PHASE_RATES).map((phase) => {
    const value = read(phase);
    return value === null ? '–' : value.toFixed(1);
  });
  return `${shown.join(' → ')}${phases.length > MAX_PHASE_RATES ? ' → …' : ''}`;
}

function classCount(stats: WorkloadStats, cls: 'error' | 'rate_limited'): number {
  return Object.entries(stats.outcomes).reduce((sum, [key, n]) => sum + (outcomeClass(key) === cls ? n : 0), 0);
}

/**
 * The seconds a workload's phases ran, as its achieved rates measured them (requests ÷ achieved
 * per second, phase by phase); null when no phase sent anything. A workload that starts late or
 * ends early is not diluted by the rest of the run.
 */
function activeSeconds(phases: readonly WorkloadPhase[]): number | null {
  const seconds = phases.reduce((sum, phase) => sum + (phase.achievedPerS > 0 ? phase.requests / phase.achievedPerS : 0), 0);
  return seconds > 0 ? seconds : null;
}

/** Goodput per second over the workload's own phases, on the same footing as its achieved rates. */
function goodputCell(w: WorkloadStats): string {
  if (w.goodput === undefined) return '–';
  const seconds = activeSeconds(w.phases);
  return `${(seconds === null ? w.goodput.perS : w.goodput.requests / seconds).toFixed(1)}/s`;
}

/** One row per workload, with a run of several; none otherwise (the run's own figures say it all). */
export function workloadTable(byWorkload: RunResult['byWorkload']): string[] {
  const workloads = Object.entries(byWorkload ?? {});
  if (workloads.length <= 1) return [];
  const rows = workloads.map(([name, w]) => [
    safe(name, 40),
    w.kind,
    phaseRates(w.phases, (phase) => phase.offeredPerS),
    phaseRates(w.phases, (phase) => phase.achievedPerS),
    w.requests > 0 ? formatMs(w.latencyMs.p50) : '–',
    w.requests > 0 ? formatMs(w.latencyMs.p99) : '–',
    formatCount(classCount(w, 'error')),
    formatCount(classCount(w, 'rate_limited')),
    goodputCell(w),
  ]);
  const right = (header: string) => ({ header, align: 'right' as const });
  const columns = [
    { header: 'workload', align: 'left' as const },
    { header: 'kind', align: 'left' as const },
    right('offered/s'),
    right('achieved/s'),
    right('p50 ms'),
    right('p99 ms'),
    right('errors'),
    right('429'),
    right('goodput'),
  ];
  return renderTable(columns, rows);
}

/** "window 0–6000 ms", "window 2000 ms–end" (ms since the recording's first call). */
const windowText = ({ fromMs, toMs }: ReplaySource['window']): string =>
  `window ${fromMs}${toMs === null ? ' ms–end' : `–${toMs} ms`}`;

/** "1 pass", or for a loop how many passes' worth of the window's calls it sent. */
function passesText(replay: ReplaySource): string {
  if (!replay.loop) return '1 pass';
  const passes = replay.callsInWindow > 0 ? replay.sent / replay.callsInWindow : 0;
  return `looped: ${passes.toFixed(1)} passes of calls sent`;
}

/**
 * A replay's lines: what became of the window's calls, the records and calls not replayed by
 * reason, and the recording's own disorder (due with the call before, not schedule lag); then
 * which part of the recording it played, how fast, how many times.
 */
export function replayFacts(replay: ReplaySource): string[] {
  const skipped = Object.entries(replay.skipped)
    .sort(([, a], [, b]) => b - a)
    .map(([reason, n]) => `${safe(reason, 60)} ${formatCount(n)}`);
  const { calls, maxMs } = replay.outOfOrder;
  const early = `up to ${formatMs(maxMs)} ms early: sent after the call before, not schedule lag`;
  const sent = [
    `${safe(replay.file, 60)}: ${formatCount(replay.sent)} sent of ${formatCount(replay.callsInWindow)} calls in the window`,
    ...(skipped.length > 0 ? [`not replayed: ${skipped.join(', ')}`] : []),
    ...(calls > 0 ? [`${formatCount(calls)} out of time order (${early})`] : []),
  ].join('; ');
  return [sent, `${windowText(replay.window)} at ${replay.speed}×, ${passesText(replay)}`];
}

/**
 * The replay lines of a run: those of each replay workload, named when the run has several
 * workloads; a file written before workloads has its one top-level `replay`.
 */
export function replayLines(result: RunResult): string[] {
  const workloads = Object.entries(result.byWorkload ?? {});
  const replays = workloads.flatMap(([name, w]) => (w.replay === undefined ? [] : [{ name, replay: w.replay }]));
  if (replays.length === 0) return result.replay === undefined ? [] : replayFacts(result.replay);
  const named = workloads.length > 1;
  return replays.flatMap(({ name, replay }) => {
    const [sent, played] = replayFacts(replay) as [string, string];
    return named ? [`${safe(name, 40)}: ${sent}`, `${' '.repeat(safe(name, 40).length + 2)}${played}`] : [sent, played];
  });
}
