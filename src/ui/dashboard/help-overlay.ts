/** What `?` shows on the run dashboard: the keys, and how to read the figures. */
import type { Canvas } from '../text/canvas.ts';
import { drawOverlay } from '../text/overlay.ts';
import { seg, type StyledLine } from '../text/styled.ts';
import { LAG_WARN_MS } from './percentiles-panel.ts';

const KEY = 12;
const row = (key: string, text: string): StyledLine => [seg(key.padEnd(KEY), 'accent'), seg(text)];
const more = (text: string): StyledLine => [seg(' '.repeat(KEY)), seg(text)];

export const RUN_HELP: readonly StyledLine[] = [
  row('q, Ctrl-C', 'stop gracefully: in-flight requests finish, the'),
  more('result file is written, exit code 130'),
  row('Ctrl-C ×2', 'quit at once'),
  row('?, Esc', 'close this help'),
  [],
  row('latency', "percentiles since the start, from each request's"),
  more('intended start (open model); service: from the send'),
  row('lag p99', `how late requests left their schedule; over ${LAG_WARN_MS} ms`),
  more('the generator, not the server, is the bottleneck'),
  row('outcomes', 'count, share, and rate over the last 10 s'),
  row('throughput', 'completions per second: ok, 429, errors'),
  more('(each on its own scale; ↑ = the peak shown)'),
  row('clients', 'backing off first, then most 429s; win = admitted'),
  more('in the current window; wait = Retry-After left'),
];

export function drawRunHelp(canvas: Canvas): void {
  drawOverlay(canvas, 'rpcload run · help', RUN_HELP, 12);
}
