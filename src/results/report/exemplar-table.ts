/**
 * The report's exemplars: per method, the requests that explain its figures — the slowest, the
 * sampled failures and 429s, and one per latency bucket above the method's p90 — with their trace
 * ids, linked to a tracing UI when a trace URL template is given (--trace-url, report.traceUrl).
 */
import type { Exemplar, RunResult } from '../../contract/result-schema.ts';
import { traceLink } from '../../profile/trace-url.ts';
import type { LabelledResult } from '../compare/compare-runs.ts';
import { code, escapeHtml, ms, text } from './html.ts';

/** What the report shows of a method's exemplars: every slowest and outcome exemplar, and the buckets above p90. */
export function shownExemplars(result: RunResult, method: string): Exemplar[] {
  const p90 = result.byMethod[method]?.latencyMs.p90 ?? 0;
  return (result.exemplars?.[method] ?? []).filter((e) => e.kinds.some((k) => k !== 'bucket') || e.latencyMs > p90);
}

/** A trace id as the page shows it: a link when there is a template, else code. */
export function traceIdHtml(e: Exemplar, traceUrl: string | null): string {
  if (traceUrl === null) return code(e.traceId);
  return `<a href="${escapeHtml(traceLink(traceUrl, e.traceId, e.spanId))}" rel="noreferrer"><code>${e.traceId}</code></a>`;
}

function exemplarRow(e: Exemplar, traceUrl: string | null): string {
  const why = e.kinds.map((k) => (k === 'bucket' ? `bucket ≤ ${e.bucketLeMs == null ? '∞' : ms(e.bucketLeMs)}` : k)).join(', ');
  return `<tr><td>${traceIdHtml(e, traceUrl)}${e.sent ? '' : ' <span class="base" title="not sent: http.traceContext">(not sent)</span>'}</td><td class="num">${ms(e.latencyMs)}</td><td class="num">${ms(e.serviceTimeMs)}</td><td>${code(e.outcome)}</td><td class="num">${e.status}</td><td>${text(e.client, 80)}</td><td>${text(e.phase, 80)}</td><td class="num">${ms(e.intendedStartMs)}</td><td>${escapeHtml(why)}</td></tr>`;
}

/** The exemplar section; '' when the result has none. */
export function exemplarSection(run: LabelledResult, traceUrl: string | null): string {
  const { result } = run;
  const methods = Object.keys(result.exemplars ?? {}).sort();
  if (methods.length === 0) return '';
  const head =
    '<tr><th scope="col">trace id</th><th scope="col" class="num">latency</th><th scope="col" class="num">service time</th><th scope="col">outcome</th><th scope="col" class="num">status</th><th scope="col">client</th><th scope="col">phase</th><th scope="col" class="num">due at</th><th scope="col">kept as</th></tr>';
  const tables = methods.map((method) => {
    const rows = shownExemplars(result, method).map((e) => exemplarRow(e, traceUrl));
    return `<h3>${code(method)}</h3><div class="scroll"><table class="exemplars"><thead>${head}</thead><tbody>${rows.join('')}</tbody></table></div>`;
  });
  const note = traceUrl === null ? '<p>Give <code>--trace-url</code> (or the profile’s <code>report.traceUrl</code>) to link each trace id to your tracing UI.</p>' : '';
  return `<section id="exemplars"><h2>Exemplars</h2><p>Requests that explain each method’s figures, by W3C trace id: the slowest, a sample of each failure outcome, one per latency bucket above p90. “due at” is ms since the run’s start.</p>${note}${tables.join('')}</section>`;
}
