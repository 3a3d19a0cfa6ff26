/**
 * The outcome breakdown: every outcome key (success, each error code, http statuses, transport
 * errors) with its count, its share of all requests and its recent rate; then arrivals that were
 * not sent (by reason) and token requests. Success first, then by count.
 */
import { outcomeClass } from '../../api/outcome.ts';
import { cellText, padEnd, padStart } from '../text/cell-text.ts';
import { formatCount, formatMs, formatRate, formatShare } from '../text/format.ts';
import { seg, type Style, type StyledLine } from '../text/styled.ts';
import { outcomeRate, RATE_WINDOW_MS, type RunFrameModel } from './run-model.ts';

const COUNT = 8;
const SHARE = 7;
const RATE = 8;

const STYLE: Readonly<Record<ReturnType<typeof outcomeClass>, Style>> = {
  success: 'ok',
  rate_limited: 'warn',
  error: 'bad',
};

/** Says what the rate column measures: the last (up to) 10 s once there is a mark a second old. */
export function outcomesTitle(model: RunFrameModel): StyledLine {
  const spanMs = model.earlier === null ? 0 : model.snapshot.elapsedMs - model.earlier.elapsedMs;
  return [
    seg('outcomes'),
    seg(
      spanMs < 1000 ? ' · rate since start' : ` · rate over ${Math.round(Math.min(spanMs, RATE_WINDOW_MS) / 1000)}s`,
      'dim',
    ),
  ];
}

export function outcomesLines(model: RunFrameModel, width: number, height: number): StyledLine[] {
  const { snapshot, earlier } = model;
  const current = { elapsedMs: snapshot.elapsedMs, outcomes: snapshot.outcomes };
  const name = Math.max(8, width - COUNT - SHARE - RATE);
  const keys = Object.keys(snapshot.outcomes).sort((a, b) =>
    a === 'success'
      ? -1
      : b === 'success'
        ? 1
        : (snapshot.outcomes[b] ?? 0) - (snapshot.outcomes[a] ?? 0) || a.localeCompare(b),
  );
  const lines: StyledLine[] = keys.map((key) => {
    const count = snapshot.outcomes[key] ?? 0;
    return [
      seg(padEnd(cellText(key, 100), name), STYLE[outcomeClass(key)]),
      seg(padStart(formatCount(count), COUNT)),
      seg(padStart(formatShare(count, snapshot.requests), SHARE), 'dim'),
      seg(padStart(`${formatRate(outcomeRate(key, current, earlier))}/s`, RATE)),
    ];
  });
  if (lines.length === 0) lines.push([seg('waiting for the first responses…', 'dim')]);
  for (const [reason, count] of Object.entries(snapshot.skipped).sort((a, b) => b[1] - a[1])) {
    lines.push([
      seg(padEnd(`not sent: ${cellText(reason, 100)}`, width - COUNT), 'dim'),
      seg(padStart(formatCount(count), COUNT), 'dim'),
    ]);
  }
  const { tokens } = snapshot;
  if (tokens.requests > 0) {
    lines.push([
      seg(`tokens ${formatCount(tokens.requests)}`, 'dim'),
      seg(` · ${formatCount(tokens.failures)} failed`, tokens.failures > 0 ? 'bad' : 'dim'),
      seg(` · p50 ${formatMs(tokens.latencyMs.p50)} ms`, 'dim'),
    ]);
  }
  if (lines.length <= height) return lines;
  const shown = lines.slice(0, Math.max(0, height - 1));
  return [...shown, [seg(`+${lines.length - shown.length} more`, 'dim')]];
}
