/**
 * The renderers lay text out on a grid where one UTF-16 code unit is one terminal cell. That holds
 * for our own labels; text from elsewhere (server error codes and details, client ids, method
 * names, paths) goes through cellText first: sanitizeText strips escape sequences and control
 * characters, then anything that would not occupy exactly one cell (wide CJK, emoji and other
 * astral characters, combining and zero-width marks) becomes `?`. The result file keeps the full
 * text; the screen keeps its alignment.
 */
import { sanitizeText } from '../../util/sanitize.ts';

// Combining and enclosing marks (variation selectors are among them), zero-width characters (0 cells); East
// Asian wide and fullwidth blocks (2 cells); anything beyond the BMP (mostly emoji, 2 cells);
// lone surrogates. Approximate, like every wcwidth, and on the safe side.
const NOT_ONE_CELL =
  /[\p{Mn}\p{Me}\u200b-\u200f\u2060-\u2064\ufeff]|[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]|[\u{10000}-\u{10ffff}]|[\ud800-\udfff]/gu;

export function cellText(untrusted: string, maxLength = 200): string {
  return sanitizeText(untrusted, maxLength).replace(NOT_ONE_CELL, '?');
}

/** Cut `text` to `width` cells, marking the cut with `…`. */
export function truncate(text: string, width: number): string {
  if (width <= 0) return '';
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
}

/** Exactly `width` cells: truncated or padded on the right. */
export function padEnd(text: string, width: number): string {
  return truncate(text, width).padEnd(Math.max(0, width));
}

/** Exactly `width` cells: truncated or padded on the left (numbers in columns). */
export function padStart(text: string, width: number): string {
  return truncate(text, width).padStart(Math.max(0, width));
}
