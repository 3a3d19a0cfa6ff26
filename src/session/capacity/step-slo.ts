/**
 * The SLO lines of a capacity search as its steps judge them. With other workloads running beside
 * the searched one, a line without a workload of its own is about the searched workload: it gains
 * `{workload:NAME}` (`p99 < 250ms` reads `p99{workload:checkout} < 250ms`), so the record says
 * what was judged. Each step then judges a line on the requests of its measured hold: the line's
 * selection narrowed to the hold's phase — a selection the step's recorder keeps, which is what
 * the step's plan lists as its thresholds. A line about another workload is judged on the whole
 * step (its phases are the profile's, not the hold). Pure.
 */
import { parseThreshold, selectorKeyOf, type ParsedThreshold, type SelectorTerm } from '../../profile/thresholds.ts';

/** The SLO's metric, selector and rest of an expression, as thresholds.ts reads them. */
const PARTS = /^(\s*)(?:([^\s:<>={}]+):)?([A-Za-z_][\w.]*)\s*(?:\{([^}]*)\})?(\s*(?:<=|>=|==|<|>).*)$/s;

/**
 * The line scoped to workload `name`: as written when it names a workload already, else with
 * `workload:NAME` among its selector's terms (a `method:` prefix becomes a term too).
 */
export function scopedLine(line: ParsedThreshold, name: string): ParsedThreshold {
  if (line.selector.some((t) => t.key === 'workload')) return line;
  const parts = PARTS.exec(line.expr);
  if (parts === null) return line;
  const [, lead = '', method, metric = '', terms, rest = ''] = parts;
  const selector = [
    ...(method === undefined ? [] : [`method:${method}`]),
    ...(terms === undefined ? [] : [terms.trim()]),
    `workload:${name}`,
  ]
    .filter((t) => t !== '')
    .join(',');
  return parseThreshold(`${lead}${metric}{${selector}} ${rest.trimStart()}`, {
    abortOnFail: line.abortOnFail,
    delayAbortEvalMs: line.delayAbortEvalMs,
  });
}

/** The SLO lines of a search: scoped to the searched workload when others run beside it (`beside`). */
export function searchSlo(lines: readonly ParsedThreshold[], name: string, beside: boolean): ParsedThreshold[] {
  return beside ? lines.map((line) => scopedLine(line, name)) : [...lines];
}

/** A term of the measured hold's phase. */
const holdTerm = (holdPhase: string): SelectorTerm => ({ key: 'phase', value: holdPhase });

/**
 * How a step judges `line`: on its selection within the hold phase `holdPhase` (the workload
 * searched is the hold's); a line that names another workload (`searched` is its name), or a
 * phase, as written. Its expression stays the line's.
 */
export function holdLine(line: ParsedThreshold, holdPhase: string, searched: string): ParsedThreshold {
  const other = line.selector.some((t) => (t.key === 'workload' && t.value !== searched) || t.key === 'phase');
  if (other) return line;
  const selector = [...line.selector, holdTerm(holdPhase)].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { ...line, selector, selectorKey: selectorKeyOf(selector) };
}

/**
 * Whether a judged line reads the hold's own requests, all of them (its selection is the hold
 * phase, perhaps with the searched workload, which the hold belongs to): its figures are the hold's.
 */
export function isWholeHold(judged: ParsedThreshold, holdPhase: string, searched: string): boolean {
  return judged.selector.every(
    (t) => (t.key === 'phase' && t.value === holdPhase) || (t.key === 'workload' && t.value === searched),
  );
}
