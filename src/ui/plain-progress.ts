/**
 * Plain progress lines for CI logs and non-TTY output: one line every few seconds on stderr
 * (stdout stays clean for the summary or --json). Only figures, no control characters.
 */
import { formatDurationMs } from '../util/duration.ts';
import type { LiveView, PhaseInfo, ViewSource } from '../contract/live-view.ts';

export interface PlainProgressOptions {
  readonly write: (line: string) => void;
  /** Default: 2 s, longer for long runs so a log stays readable (about 60 lines per run, ≤ 10 s apart). */
  readonly intervalMs?: number;
}

/** The phase running at `elapsedMs` and where in it we are. */
export function phaseAt(
  phases: readonly PhaseInfo[],
  elapsedMs: number,
): { readonly index: number; readonly phase: PhaseInfo | undefined } {
  let endMs = 0;
  for (const [index, phase] of phases.entries()) {
    endMs += phase.durationMs;
    if (elapsedMs < endMs) return { index, phase };
  }
  return { index: phases.length - 1, phase: phases[phases.length - 1] };
}

const fixed = (value: number, digits = 1): string => value.toFixed(digits);

export function progressLine(source: ViewSource): string {
  const s = source.snapshot();
  const { header } = source;
  const { phase } = phaseAt(header.phases, s.elapsedMs);
  const errorShare = s.requests > 0 ? (100 * s.errors) / s.requests : 0;
  return [
    `[${formatDurationMs(Math.min(s.elapsedMs, header.totalDurationMs)).padStart(6)} / ${formatDurationMs(header.totalDurationMs)}]`,
    phase ? `${phase.name} (${phase.load})` : '',
    `rps ${fixed(s.rpsLastSecond)}`,
    `p50 ${fixed(s.latencyMs.p50)}ms`,
    `p99 ${fixed(s.latencyMs.p99)}ms`,
    `429s ${s.rateLimited}`,
    `errors ${s.errors} (${fixed(errorShare)}%)`,
    `requests ${s.requests}`,
  ]
    .filter((part) => part.length > 0)
    .join('  ');
}

export function createPlainProgress(source: ViewSource, options: PlainProgressOptions): LiveView {
  const intervalMs = options.intervalMs ?? Math.min(10_000, Math.max(2000, source.header.totalDurationMs / 60));
  let timer: NodeJS.Timeout | null = null;
  return {
    start: () => {
      timer = setInterval(() => options.write(progressLine(source)), intervalMs);
      timer.unref();
    },
    stop: () => {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}
