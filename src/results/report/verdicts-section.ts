/** Check verdicts with their evidence (collapsed unless failing), thresholds and warnings. */
import type { CheckResult, ThresholdResult } from '../../contract/result-schema.ts';
import type { LabelledResult } from '../compare/compare-runs.ts';
import { thresholdActual } from '../text-table.ts';
import { code, preformatted, text } from './html.ts';

const badge = (verdict: string): string => `<span class="badge ${text(verdict)}">${text(verdict)}</span>`;

function checkDetails(check: CheckResult, baseVerdict: string | undefined): string {
  const notes = check.notes && check.notes.length > 0 ? `<ul class="notes">${check.notes.map((n) => `<li>${text(n, 500)}</li>`).join('')}</ul>` : '';
  const duration = check.durationMs !== undefined ? `<p class="note">took ${Math.round(check.durationMs)} ms</p>` : '';
  const base = baseVerdict !== undefined ? ` <span class="base-inline">baseline: ${badge(baseVerdict)}</span>` : '';
  // A skip says why it could not be judged; one because the target broke is opened like a failure.
  const skipClass = check.verdict === 'skip' ? ` <span class="note">(${text(check.skipClass ?? 'inconclusive')})</span>` : '';
  const open = check.verdict === 'fail' || check.skipClass === 'target_broken' || check.skipClass === 'internal_error';
  return (
    `<details class="check"${open ? ' open' : ''}><summary>${badge(check.verdict)} ${code(check.id)} — ${text(check.detail, 300)}${skipClass}${base}</summary>` +
    `${notes}${duration}<pre class="evidence">${preformatted(JSON.stringify(check.evidence, null, 2))}</pre></details>`
  );
}

export function checksSection(run: LabelledResult, baseline?: LabelledResult): string {
  const checks = run.result.checks;
  if (checks.length === 0) return `<section id="checks"><h2>Checks</h2><p class="note">No conformance checks in this run.</p></section>`;
  const baseVerdicts = new Map((baseline?.result.checks ?? []).map((c) => [c.id, c.verdict]));
  const failing = checks.filter((c) => c.verdict === 'fail').length;
  const summary = `<p class="note">${checks.length} checks: ${failing} failing, ${checks.filter((c) => c.verdict === 'pass').length} passing, ${checks.filter((c) => c.verdict === 'skip').length} skipped. Click a check for its evidence.</p>`;
  return `<section id="checks"><h2>Checks</h2>${summary}${checks.map((c) => checkDetails(c, baseline ? (baseVerdicts.get(c.id) ?? 'absent') : undefined)).join('')}</section>`;
}

const actual = (t: ThresholdResult | undefined): string => (t === undefined ? '—' : text(thresholdActual(t.expr, t.actual)));
const outcome = (t: ThresholdResult | undefined): string => (t === undefined ? '—' : badge(t.ok ? 'pass' : 'fail'));

export function thresholdsSection(run: LabelledResult, baseline?: LabelledResult): string {
  const thresholds = run.result.thresholds;
  if (thresholds.length === 0) return `<section id="thresholds"><h2>Thresholds</h2><p class="note">No thresholds were set.</p></section>`;
  const base = new Map((baseline?.result.thresholds ?? []).map((t) => [t.expr, t]));
  const baseHead = baseline ? '<th class="num">baseline actual</th><th>baseline</th>' : '';
  const rows = thresholds.map((t) => {
    const b = base.get(t.expr);
    const baseCells = baseline ? `<td class="num base-col">${actual(b)}</td><td>${outcome(b)}</td>` : '';
    return `<tr><th scope="row">${code(t.expr)}</th><td class="num">${actual(t)}</td><td>${outcome(t)}</td>${baseCells}</tr>`;
  });
  return `<section id="thresholds"><h2>Thresholds</h2><table><thead><tr><th>expression</th><th class="num">actual</th><th>result</th>${baseHead}</tr></thead><tbody>${rows.join('')}</tbody></table></section>`;
}

export function warningsSection(run: LabelledResult): string {
  const warnings = run.result.warnings;
  const body = warnings.length === 0 ? '<p class="note">None.</p>' : `<ul class="warnings">${warnings.map((w) => `<li>${text(w, 500)}</li>`).join('')}</ul>`;
  return `<section id="warnings"><h2>Warnings</h2>${body}</section>`;
}
