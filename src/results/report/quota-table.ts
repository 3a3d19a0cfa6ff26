/**
 * Per-client quota usage from the rate-limit ledger: admitted and refused per client, the most
 * refused first, bounded to TOP_CLIENTS rows (a run may have thousands of clients) with a note
 * that sums up the rest. "Peak window" is the most requests admitted in one contract window,
 * against the limit: above it, the server let a client exceed its quota.
 */
import type { RateLimitClient, RateLimitReport } from '../../contract/result-schema.ts';
import type { LabelledResult } from '../compare/compare-runs.ts';
import { code, count } from './html.ts';

export const TOP_CLIENTS = 25;

const peakAdmitted = (client: RateLimitClient): number => client.periods.reduce((peak, p) => Math.max(peak, p.admitted), 0);

/**
 * The busiest window against the limit: the bar's full width is the limit (or the peak, when a
 * server let a client past it), the filled part what was admitted in that window, and the part
 * beyond the limit red.
 */
function bar(peak: number, limit: number): string {
  const scale = Math.max(peak, limit);
  const within = (Math.min(peak, limit) / scale) * 100;
  const over = (Math.max(0, peak - limit) / scale) * 100;
  return `<div class="bar" title="busiest window: ${peak} admitted, limit ${limit}"><span class="admitted" style="width:${within.toFixed(1)}%"></span><span class="refused" style="width:${over.toFixed(1)}%"></span></div>`;
}

export function quotaTable(run: LabelledResult, baseline?: LabelledResult): string {
  const ledger: RateLimitReport | null = run.result.rateLimit;
  if (!ledger) return `<section id="clients"><h2>Per-client quota</h2><p class="note">This run has no rate-limit ledger.</p></section>`;
  const baseClients = baseline?.result.rateLimit?.clients ?? {};
  const sorted = Object.entries(ledger.clients).sort(([a, x], [b, y]) => y.refused - x.refused || y.sent - x.sent || a.localeCompare(b));
  const shown = sorted.slice(0, TOP_CLIENTS);
  const rest = sorted.slice(TOP_CLIENTS);
  const baseHead = baseline ? '<th class="num">baseline admitted</th><th class="num">baseline refused</th>' : '';
  const rows = shown.map(([id, c]) => {
    const peak = peakAdmitted(c);
    const base = baseClients[id];
    const baseCells = baseline ? `<td class="num base-col">${base ? count(base.admitted) : '—'}</td><td class="num base-col">${base ? count(base.refused) : '—'}</td>` : '';
    return (
      `<tr><th scope="row">${code(id, 80)}</th><td class="num">${count(c.sent)}</td><td class="num">${count(c.admitted)}</td><td class="num">${count(c.refused)}</td>` +
      `<td class="num${peak > ledger.limit ? ' over' : ''}">${peak} / ${ledger.limit}</td><td>${bar(peak, ledger.limit)}</td>${baseCells}</tr>`
    );
  });
  const sum = (key: 'sent' | 'admitted' | 'refused') => count(rest.reduce((total, [, c]) => total + c[key], 0));
  const note =
    rest.length > 0
      ? `<p class="note">Showing the ${TOP_CLIENTS} most refused of ${count(sorted.length)} clients; the other ${count(rest.length)} sent ${sum('sent')} requests (${sum('admitted')} admitted, ${sum('refused')} refused).</p>`
      : '';
  return (
    `<section id="clients"><h2>Per-client quota</h2><p class="note">Contract: ${ledger.limit} requests per ${ledger.windowS} s per client; on 429 the driver ${ledger.policy === 'honour' ? 'honoured Retry-After' : 'kept sending'}.</p>` +
    `<div class="scroll"><table><thead><tr><th>client</th><th class="num">sent</th><th class="num">admitted</th><th class="num">refused</th><th class="num">peak window</th><th>busiest window / limit</th>${baseHead}</tr></thead>` +
    `<tbody>${rows.join('')}</tbody></table></div>${note}</section>`
  );
}
