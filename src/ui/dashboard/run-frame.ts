/**
 * One whole frame of the run dashboard: the layout for the size, each panel's border, title and
 * content, and the help overlay on top when open. Pure: (model, size) → exactly `size.height`
 * lines of exactly `size.width` cells, the same text a screen capture shows.
 */
import { Canvas, contentRect, type Rect } from '../text/canvas.ts';
import type { StyledLine } from '../text/styled.ts';
import { latencyChartLines, latencyChartTitle, throughputLines, throughputTitle } from './chart-panels.ts';
import { clientsLines, clientsTitle } from './clients-panel.ts';
import { headerLines } from './header-panel.ts';
import { drawRunHelp } from './help-overlay.ts';
import { planRunLayout, type RunPanelId, type Size } from './layout.ts';
import { logLines, logTitle } from './log-panel.ts';
import { outcomesLines, outcomesTitle } from './outcomes-panel.ts';
import { percentilesLines, percentilesTitle } from './percentiles-panel.ts';
import type { RunFrameModel } from './run-model.ts';

type PanelRenderer = (model: RunFrameModel, inner: Rect) => { readonly title: StyledLine; readonly lines: readonly StyledLine[] };

const PANELS: Readonly<Record<Exclude<RunPanelId, 'header'>, PanelRenderer>> = {
  percentiles: (m, r) => ({ title: percentilesTitle(m), lines: percentilesLines(m, r.width, r.height) }),
  outcomes: (m, r) => ({ title: outcomesTitle(m), lines: outcomesLines(m, r.width, r.height) }),
  throughput: (m, r) => ({ title: throughputTitle(m, r.width), lines: throughputLines(m, r.width, r.height) }),
  latencyChart: (m, r) => ({ title: latencyChartTitle(m, r.width), lines: latencyChartLines(m, r.width, r.height) }),
  clients: (m, r) => ({ title: clientsTitle(m, r.height), lines: clientsLines(m, r.width, r.height) }),
  log: (m, r) => ({ title: logTitle(m), lines: logLines(m, r.width, r.height) }),
};

export function renderRunFrame(model: RunFrameModel, size: Size): StyledLine[] {
  const canvas = new Canvas(size.width, size.height);
  const layout = planRunLayout(size);
  if (layout.header) canvas.writeLines(layout.header, headerLines(model, layout.header.width));
  for (const [id, render] of Object.entries(PANELS) as [Exclude<RunPanelId, 'header'>, PanelRenderer][]) {
    const rect = layout[id];
    if (rect === undefined) continue;
    const content = contentRect(rect);
    const { title, lines } = render(model, content);
    canvas.box(rect, title);
    canvas.writeLines(content, lines);
  }
  if (model.help) drawRunHelp(canvas);
  return canvas.lines();
}
