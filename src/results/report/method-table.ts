/** Per-method figures (all methods first), each cell with the baseline's value under it. */
import { outcomeShare } from '../compare/metrics.ts';
import type { Stats } from '../../contract/result-schema.ts';
import type { LabelledResult } from '../compare/compare-runs.ts';
import { code, count, ms, percent, withBaseline } from './html.ts';

const COLUMNS: readonly (readonly [title: string, value: (s: Stats) => string])[] = [
  ['requests', (s) => count(s.requests)],
  ['rps', (s) => s.rps.toFixed(1)],
  ['p50', (s) => ms(s.latencyMs.p50)],
  ['p90', (s) => ms(s.latencyMs.p90)],
  ['p99', (s) => ms(s.latencyMs.p99)],
  ['p99.9', (s) => ms(s.latencyMs.p999)],
  ['max', (s) => ms(s.latencyMs.max)],
  ['service p99', (s) => ms(s.serviceTimeMs.p99)],
  ['errors', (s) => percent(outcomeShare(s, 'error'))],
  ['429', (s) => percent(outcomeShare(s, 'rate_limited'))],
];

function row(name: string, stats: Stats | undefined, baseStats: Stats | undefined, hasBaseline: boolean): string {
  const cells = COLUMNS.map(([, value]) => {
    const own = stats ? value(stats) : '—';
    return `<td class="num">${withBaseline(own, hasBaseline ? (baseStats ? value(baseStats) : '—') : undefined)}</td>`;
  });
  return `<tr><th scope="row">${name}</th>${cells.join('')}</tr>`;
}

export function methodTable(run: LabelledResult, baseline?: LabelledResult): string {
  const byMethod = run.result.byMethod;
  const baseByMethod = baseline?.result.byMethod ?? {};
  // Busiest first; methods only the baseline had come last.
  const methods = [
    ...Object.keys(byMethod).sort((a, b) => byMethod[b]!.requests - byMethod[a]!.requests || a.localeCompare(b)),
    ...Object.keys(baseByMethod).filter((m) => !(m in byMethod)).sort(),
  ];
  const head = `<tr><th scope="col">method</th>${COLUMNS.map(([title]) => `<th scope="col" class="num">${title}</th>`).join('')}</tr>`;
  const rows = [
    row('<em>all methods</em>', run.result.summary, baseline?.result.summary, baseline !== undefined),
    ...methods.map((m) => row(code(m), byMethod[m], baseByMethod[m], baseline !== undefined)),
  ];
  return `<section id="methods"><h2>Per method</h2><div class="scroll"><table><thead>${head}</thead><tbody>${rows.join('')}</tbody></table></div></section>`;
}
