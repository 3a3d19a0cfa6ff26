/**
 * The clients worth watching: those backing off right now first (with the Retry-After countdown),
 * then the most refused, then the busiest. Per client: sent, admitted, refused (429), quota used
 * in the current window (against the contract when the header has one), and the countdown.
 */
import type { LiveClientRow } from '../../contract/live-snapshot.ts';
import { cellText, padEnd, padStart } from '../text/cell-text.ts';
import { formatCount, formatSeconds } from '../text/format.ts';
import { seg, type Style, type StyledLine } from '../text/styled.ts';
import type { RunFrameModel } from './run-model.ts';

/** Milliseconds of Retry-After still to wait at `nowMs`, or 0 when the client is not backing off. */
export function backoffLeftMs(client: LiveClientRow, nowMs: number): number {
  if (client.lastRetryAfterS === null || client.lastRetryAfterAtMs === null) return 0;
  return Math.max(0, client.lastRetryAfterAtMs + client.lastRetryAfterS * 1000 - nowMs);
}

/** The `count` clients to show, most throttled first. */
export function pickClients(clients: readonly LiveClientRow[], nowMs: number, count: number): LiveClientRow[] {
  return [...clients]
    .sort(
      (a, b) =>
        Number(backoffLeftMs(b, nowMs) > 0) - Number(backoffLeftMs(a, nowMs) > 0) ||
        b.refused - a.refused ||
        b.sent - a.sent ||
        a.id.localeCompare(b.id),
    )
    .slice(0, Math.max(0, count));
}

const SENT = 6;
const ADMITTED = 6;
const REFUSED = 5;
const WINDOW = 8;
const WAIT = 6;

export function clientsTitle(model: RunFrameModel, height: number): StyledLine {
  const total = model.snapshot.clients.length;
  const shown = Math.min(total, Math.max(0, height - 1));
  return [seg('clients'), seg(shown < total ? ` · ${shown} of ${total}, most throttled first` : ` · ${total}`, 'dim')];
}

export function clientsLines(model: RunFrameModel, width: number, height: number): StyledLine[] {
  const { snapshot, header } = model;
  const limit = header.rateLimit?.limit ?? null;
  const id = Math.max(6, width - SENT - ADMITTED - REFUSED - WINDOW - WAIT);
  const head: StyledLine = [
    seg(
      padEnd('client', id) +
        padStart('sent', SENT) +
        padStart('adm', ADMITTED) +
        padStart('429', REFUSED) +
        padStart(limit === null ? 'window' : `win/${limit}`, WINDOW) +
        padStart('wait', WAIT),
      'dim',
    ),
  ];
  if (snapshot.clients.length === 0) return [head, [seg('no clients', 'dim')]];
  const rows = pickClients(snapshot.clients, snapshot.elapsedMs, height - 1).map((client): StyledLine => {
    const left = backoffLeftMs(client, snapshot.elapsedMs);
    const used = client.admittedInWindow;
    const windowStyle: Style | null =
      limit === null ? null : used >= limit ? 'bad' : used >= 0.8 * limit ? 'warn' : null;
    return [
      seg(padEnd(cellText(client.id, 100), id)),
      seg(padStart(formatCount(client.sent), SENT)),
      seg(padStart(formatCount(client.admitted), ADMITTED)),
      seg(padStart(formatCount(client.refused), REFUSED), client.refused > 0 ? 'warn' : null),
      seg(padStart(formatCount(used), WINDOW), windowStyle),
      seg(padStart(left > 0 ? formatSeconds(left) : '', WAIT), 'warn'),
    ];
  });
  return [head, ...rows];
}
