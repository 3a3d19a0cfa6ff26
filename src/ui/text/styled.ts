/**
 * Styled text, the currency of every pure renderer in src/ui: a line is a list of segments, each
 * with an optional semantic style. Styles name a meaning (ok, warn, bad…), not a colour, so the
 * same frame renders as coloured blessed markup, as NO_COLOR markup, or as plain text for tests
 * and the README.
 */
import type { Style } from '../../util/terminal-style.ts';

export type { Style };

export interface Segment {
  readonly text: string;
  readonly style: Style | null;
}

export type StyledLine = readonly Segment[];

/** A segment; `style` null = the terminal's default. */
export const seg = (text: string, style: Style | null = null): Segment => ({ text, style });

/** Colour tags; `strong` and `inverse` are attributes, not colours, so NO_COLOR keeps them. */
const COLOUR_TAG: Readonly<Record<Style, string | null>> = {
  ok: 'green-fg',
  warn: 'yellow-fg',
  bad: 'red-fg',
  dim: 'gray-fg',
  accent: 'cyan-fg',
  strong: 'bold',
  inverse: 'inverse',
};
const ATTRIBUTE_STYLES: ReadonlySet<Style> = new Set(['strong', 'inverse']);

/** Blessed interprets `{…}` as a tag: braces in text (server strings included) must be escaped. */
export function escapeTags(text: string): string {
  return text.replace(/[{}]/g, (brace) => (brace === '{' ? '{open}' : '{close}'));
}

/** One line as blessed markup; with `colour` false only attributes (bold, inverse) survive. */
export function lineToTags(line: StyledLine, colour: boolean): string {
  let out = '';
  for (const { text, style } of line) {
    const tag = style === null || (!colour && !ATTRIBUTE_STYLES.has(style)) ? null : COLOUR_TAG[style];
    out += tag === null ? escapeTags(text) : `{${tag}}${escapeTags(text)}{/${tag}}`;
  }
  return out;
}

/** A whole frame as blessed markup, one line per row. */
export function frameToTags(lines: readonly StyledLine[], colour: boolean): string {
  return lines.map((line) => lineToTags(line, colour)).join('\n');
}

/** The visible characters of a line. */
export function lineText(line: StyledLine): string {
  return line.map((s) => s.text).join('');
}

/** A frame as plain text, one line per row (what a screen capture shows). */
export function frameToText(lines: readonly StyledLine[]): string {
  return lines.map(lineText).join('\n');
}

/** Cut a line to `width` cells, marking the cut with `…` in the style of the text it cuts. */
export function fitLine(line: StyledLine, width: number): StyledLine {
  if (lineText(line).length <= width) return line;
  if (width <= 0) return [];
  const out: Segment[] = [];
  let left = width - 1;
  for (const s of line) {
    if (s.text.length >= left) {
      out.push(seg(`${s.text.slice(0, left)}…`, s.style));
      return out;
    }
    out.push(s);
    left -= s.text.length;
  }
  return out;
}

/**
 * Wrap a line to `width` cells, continuation lines indented by `indent`; breaks at the last space
 * of a row when there is one in its second half, else mid-word. Styles carry across the breaks.
 */
export function wrapLine(line: StyledLine, width: number, indent = 0): StyledLine[] {
  if (width <= 0) return [];
  const cells: { readonly ch: string; readonly style: Style | null }[] = [];
  for (const s of line) for (const ch of s.text) cells.push({ ch, style: s.style });
  const rows: StyledLine[] = [];
  let start = 0;
  while (start < cells.length) {
    const pad = rows.length === 0 ? 0 : Math.min(indent, width - 1);
    const room = width - pad;
    let end = Math.min(cells.length, start + room);
    if (end < cells.length) {
      const space = cells
        .slice(start, end)
        .map((c) => c.ch)
        .lastIndexOf(' ');
      if (space >= room / 2) end = start + space + 1;
    }
    const row: Segment[] = pad > 0 ? [seg(' '.repeat(pad))] : [];
    for (const cell of cells.slice(start, end)) {
      const last = row[row.length - 1];
      if (last !== undefined && last.style === cell.style && (pad === 0 || row.length > 1))
        row[row.length - 1] = seg(last.text + cell.ch, cell.style);
      else row.push(seg(cell.ch, cell.style));
    }
    rows.push(row);
    start = end;
  }
  return rows.length > 0 ? rows : [[]];
}

/** `left` and `right` on one line of `width` cells: the right part wins, the left is cut with `…`. */
export function spread(left: StyledLine, right: StyledLine, width: number): StyledLine {
  const rightLength = lineText(right).length;
  const fitted = fitLine(left, Math.max(0, width - rightLength - 1));
  const gap = Math.max(1, width - lineText(fitted).length - rightLength);
  return [...fitted, seg(' '.repeat(gap)), ...right];
}
