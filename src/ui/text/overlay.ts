/**
 * A centred, bordered box drawn over whatever is on the canvas (the help screens), sized to its
 * lines (wrapped to fit) and clipped to the canvas with a one-cell margin.
 */
import { innerRect, type Canvas, type Rect } from './canvas.ts';
import { seg, wrapLine, type StyledLine } from './styled.ts';

export function drawOverlay(canvas: Canvas, title: string, text: readonly StyledLine[], wrapIndent = 0): Rect {
  const contentWidth = Math.max(title.length + 4, ...text.map((line) => line.reduce((n, s) => n + s.text.length, 0)));
  const width = Math.min(canvas.width - 2, contentWidth + 4);
  // Narrow terminals: wrap rather than cut, continuation lines under the text column.
  const lines = text.flatMap((line) => wrapLine(line, Math.max(1, width - 4), wrapIndent));
  const height = Math.min(canvas.height - 2, lines.length + 2);
  const rect: Rect = {
    x: Math.max(0, Math.floor((canvas.width - width) / 2)),
    y: Math.max(0, Math.floor((canvas.height - height) / 2)),
    width,
    height,
  };
  canvas.clear(rect);
  canvas.box(rect, [seg(title, 'strong')], 'accent');
  const inner = innerRect(rect);
  canvas.writeLines({ ...inner, x: inner.x + 1, width: Math.max(0, inner.width - 2) }, lines);
  return rect;
}
