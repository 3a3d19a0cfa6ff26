/**
 * The announced windows of a load run read against the limit, client by client: each window
 * alone (see readWindow), then across a client's windows whether one clock-aligned phase could
 * explain the windows that hold more than `limit` unless a boundary fell inside them.
 */
import { readWindow, type WindowReading, type WindowReadingKind } from '../../metrics/window-reading.ts';
import type { LedgerData } from '../../metrics/ledger-data.ts';

/** What one window finally says: `aligned_possible` = over the limit unless a clock-aligned boundary fell inside. */
export type SettledReading = Exclude<WindowReadingKind, 'over_unless_aligned'> | 'aligned_possible';

export interface ClientWindow {
  readonly client: string;
  readonly window: WindowReading;
  readonly reading: SettledReading;
  /** For `over` readings settled across windows: no clock-aligned phase explains them all. */
  readonly byPhase: boolean;
}

/** Closed arcs on a circle of circumference `period`, as [start, end] with 0 ≤ start ≤ end ≤ period. */
type Arcs = [number, number][];

/** The arc of resets (fromMs, toMs] folded onto one window; null when it spans a whole window. */
function arcOf(fromMs: number, toMs: number, period: number): Arcs | null {
  if (toMs - fromMs >= period) return null;
  const a = ((fromMs % period) + period) % period;
  const b = a + (toMs - fromMs);
  return b <= period
    ? [[a, b]]
    : [
        [a, period],
        [0, b - period],
      ];
}

function intersect(x: Arcs, y: Arcs): Arcs {
  const out: Arcs = [];
  for (const [a, b] of x)
    for (const [c, d] of y) if (Math.max(a, c) <= Math.min(b, d)) out.push([Math.max(a, c), Math.min(b, d)]);
  return out;
}

/**
 * Whether one clock-aligned phase fits all of a client's announced resets: every reset a
 * clock-aligned limiter announces is a boundary, so each window's reset range, folded onto one
 * window, must share a point — and for a window over the limit unless a boundary fell inside,
 * the part of its range that keeps it within the limit.
 */
export function alignedPhaseFits(
  windows: readonly WindowReading[],
  kinds: readonly WindowReadingKind[],
  windowMs: number,
): boolean {
  let feasible: Arcs = [[0, windowMs]];
  windows.forEach((w, i) => {
    const from =
      kinds[i] === 'over_unless_aligned' && w.withinLimitFromMs !== null ? w.withinLimitFromMs : w.resetFromMs;
    const arc = arcOf(from, w.resetToMs, windowMs);
    if (arc !== null) feasible = intersect(feasible, arc);
  });
  return feasible.length > 0;
}

/** Every kept announced window of every client, settled; in client order, then time order. */
export function settledWindows(ledger: LedgerData): ClientWindow[] {
  return Object.entries(ledger.clients).flatMap(([client, data]) => {
    const kinds = data.windows.map((w) => readWindow(w, ledger.limit, ledger.windowMs));
    const fits = !kinds.includes('over_unless_aligned') || alignedPhaseFits(data.windows, kinds, ledger.windowMs);
    return data.windows.map((window, i): ClientWindow => {
      const kind = kinds[i]!;
      if (kind !== 'over_unless_aligned') return { client, window, reading: kind, byPhase: false };
      return { client, window, reading: fits ? 'aligned_possible' : 'over', byPhase: !fits };
    });
  });
}
