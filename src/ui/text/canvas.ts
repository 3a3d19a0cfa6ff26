/**
 * The cell grid the dashboards' pure renderers draw a screen on, and the
 * rectangles they lay it out with.
 */
import { seg, type Segment, type Style, type StyledLine } from './styled.ts';

/** A rectangle of cells; x and y from the top-left corner. */
export interface Rect {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** The inside of a bordered box. */
export function innerRect(rect: Rect): Rect {
  return { x: rect.x + 1, y: rect.y + 1, width: Math.max(0, rect.width - 2), height: Math.max(0, rect.height - 2) };
}

/** Inside the border, less a one-cell margin left and right: where a panel's text goes. */
export function contentRect(rect: Rect): Rect {
  const inner = innerRect(rect);
  return { ...inner, x: inner.x + 1, width: Math.max(0, inner.width - 2) };
}

/**
 * A grid of styled cells the pure renderers draw a whole screen on; lines() turns it into styled
 * lines (adjacent cells of one style merged). Writes are clipped to the canvas and to an optional
 * width, so a panel can never draw over its neighbour. Text must be one cell per code unit (see
 * cellText for anything that did not come from our own labels).
 */
export class Canvas {
  private readonly chars: string[];
  private readonly styles: (Style | null)[];

  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.chars = new Array<string>(Math.max(0, width * height)).fill(' ');
    this.styles = new Array<Style | null>(Math.max(0, width * height)).fill(null);
  }

  /** Write `text` from (x, y), at most `maxWidth` cells; returns the cells written. */
  write(x: number, y: number, text: string, style: Style | null = null, maxWidth = Number.POSITIVE_INFINITY): number {
    if (y < 0 || y >= this.height) return 0;
    const end = Math.min(this.width, x + Math.min(maxWidth, text.length));
    let written = 0;
    for (let col = Math.max(0, x); col < end; col++) {
      this.chars[y * this.width + col] = text[col - x]!;
      this.styles[y * this.width + col] = style;
      written++;
    }
    return written;
  }

  /** Write a styled line from (x, y), clipped to `maxWidth` cells. */
  writeLine(x: number, y: number, line: StyledLine, maxWidth = Number.POSITIVE_INFINITY): void {
    let col = 0;
    for (const { text, style } of line) {
      if (col >= maxWidth) return;
      this.write(x + col, y, text, style, maxWidth - col);
      col += text.length;
    }
  }

  /** Write lines into a rect, one per row, clipped to it. */
  writeLines(rect: Rect, lines: readonly StyledLine[]): void {
    lines.slice(0, rect.height).forEach((line, row) => this.writeLine(rect.x, rect.y + row, line, rect.width));
  }

  /** Blank a rect (overlays draw on a cleared area). */
  clear(rect: Rect): void {
    for (let row = rect.y; row < rect.y + rect.height; row++)
      this.write(rect.x, row, ' '.repeat(Math.max(0, rect.width)));
  }

  /** A single-line border with an optional title in the top edge: `┌ title ───┐`. */
  box(rect: Rect, title: StyledLine = [], borderStyle: Style | null = 'dim'): void {
    const { x, y, width, height } = rect;
    if (width < 2 || height < 2) return;
    this.write(x, y, `┌${'─'.repeat(width - 2)}┐`, borderStyle);
    for (let row = y + 1; row < y + height - 1; row++) {
      this.write(x, row, '│', borderStyle);
      this.write(x + width - 1, row, '│', borderStyle);
    }
    this.write(x, y + height - 1, `└${'─'.repeat(width - 2)}┘`, borderStyle);
    if (title.length > 0 && width > 6) this.writeLine(x + 2, y, [seg(' '), ...title, seg(' ')], width - 4);
  }

  /** The rows as styled lines, each exactly `width` cells. */
  lines(): StyledLine[] {
    const out: StyledLine[] = [];
    for (let row = 0; row < this.height; row++) {
      const line: Segment[] = [];
      let text = '';
      let style: Style | null = null;
      for (let col = 0; col < this.width; col++) {
        const i = row * this.width + col;
        if (this.styles[i] !== style && text.length > 0) {
          line.push(seg(text, style));
          text = '';
        }
        style = this.styles[i]!;
        text += this.chars[i]!;
      }
      if (text.length > 0) line.push(seg(text, style));
      out.push(line);
    }
    return out;
  }
}
