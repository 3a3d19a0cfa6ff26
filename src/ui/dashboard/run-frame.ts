/**
 * One whole frame of the run dashboard: the layout for the size, each panel's border, title and
 * content, and the help overlay on top when open. Pure: (model, size) → exactly `size.height`
 * lines of exactly `size.width` cells, the same text a screen capture shows.
 */
import { Canvas, contentRect, type Rect } from '../text/canvas.ts';
import { drawOverlay } from '../text/overlay.ts';
import { seg, type StyledLine } from '../text/styled.ts';
import { latencyChartLines, latencyChartTitle, throughputLines, throughputTitle } from './chart-panels.ts';
import { clientsLines, clientsTitle } from './clients-panel.ts';
import { headerLines } from './header-panel.ts';
import { planRunLayout, type RunPanelId, type Size } from './layout.ts';
import { logLines, logTitle } from './log-panel.ts';
import { outcomesLines, outcomesTitle } from './outcomes-panel.ts';
import { LAG_WARN_MS, percentilesLines, percentilesTitle } from './percentiles-panel.ts';
import { showsWorkloads, type RunFrameModel } from './run-model.ts';
import { workloadsLines, workloadsPanelLines, workloadsTitle } from './workloads-panel.ts';

type PanelRenderer = (
  model: RunFrameModel,
  inner: Rect,
) => { readonly title: StyledLine; readonly lines: readonly StyledLine[] };

const PANELS: Readonly<Record<Exclude<RunPanelId, 'header'>, PanelRenderer>> = {
  percentiles: (m, r) => ({ title: percentilesTitle(m), lines: percentilesLines(m, r.width, r.height) }),
  outcomes: (m, r) => ({ title: outcomesTitle(m), lines: outcomesLines(m, r.width, r.height) }),
  workloads: (m, r) => ({ title: workloadsTitle(m), lines: workloadsLines(m, r.width, r.height) }),
  throughput: (m, r) => ({ title: throughputTitle(m, r.width), lines: throughputLines(m, r.width, r.height) }),
  latencyChart: (m, r) => ({ title: latencyChartTitle(m, r.width), lines: latencyChartLines(m, r.width, r.height) }),
  clients: (m, r) => ({ title: clientsTitle(m, r.height), lines: clientsLines(m, r.width, r.height) }),
  log: (m, r) => ({ title: logTitle(m), lines: logLines(m, r.width, r.height) }),
};

export function renderRunFrame(model: RunFrameModel, size: Size): StyledLine[] {
  const canvas = new Canvas(size.width, size.height);
  const layout = planRunLayout(size, showsWorkloads(model.header) ? workloadsPanelLines(model) : 0);
  if (layout.header) canvas.writeLines(layout.header, headerLines(model, layout.header.width));
  for (const [id, render] of Object.entries(PANELS) as [Exclude<RunPanelId, 'header'>, PanelRenderer][]) {
    const rect = layout[id];
    if (rect === undefined) continue;
    const content = contentRect(rect);
    const { title, lines } = render(model, content);
    canvas.box(rect, title);
    canvas.writeLines(content, lines);
  }
  if (model.help) drawRunHelp(canvas, showsWorkloads(model.header));
  return canvas.lines();
}

const KEY = 12;
const helpRow = (key: string, text: string): StyledLine => [seg(key.padEnd(KEY), 'accent'), seg(text)];
const helpMore = (text: string): StyledLine => [seg(' '.repeat(KEY)), seg(text)];

/** What `?` shows on the run dashboard: the keys, and how to read the figures. */
const RUN_HELP: readonly StyledLine[] = [
  helpRow('q, Ctrl-C', 'stop gracefully: in-flight requests finish, the'),
  helpMore('result file is written, exit code 130'),
  helpRow('Ctrl-C ×2', 'quit at once'),
  helpRow('?, Esc', 'close this help'),
  [],
  helpRow('latency', "percentiles since the start, from each request's"),
  helpMore('intended start (open model); service: from the send'),
  helpRow('lag p99', `how late requests left their schedule; over ${LAG_WARN_MS} ms`),
  helpMore('the generator, not the server, is the bottleneck'),
  helpRow('outcomes', 'count, share, and rate over the last 10 s'),
  helpRow('throughput', 'completions per second: ok, 429, errors'),
  helpMore('(each on its own scale; ↑ = the peak shown)'),
  helpRow('clients', 'backing off first, then most 429s; win = admitted'),
  helpMore('in the current window; wait = Retry-After left'),
];

/** Said only when the dashboard shows the workloads panel. */
const WORKLOADS_HELP: readonly StyledLine[] = [
  helpRow('workloads', 'offered/s its schedule asks now; achieved/s in'),
  helpMore('the last second; ↳ a replay: calls sent of those due'),
];

function drawRunHelp(canvas: Canvas, workloads: boolean): void {
  drawOverlay(canvas, 'rpcload run · help', workloads ? [...RUN_HELP, ...WORKLOADS_HELP] : RUN_HELP, 12);
}
