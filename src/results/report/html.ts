/**
 * HTML escaping for the report, and the small formatters its tables share. Everything that comes
 * from a result file — method names, check ids, error codes, evidence — may have been chosen by a
 * hostile server: it passes through `text` (control characters removed, length capped, then
 * escaped) and never reaches the page raw.
 */
import { sanitizeText } from '../../util/sanitize.ts';
import { groupThousands } from '../../util/number-format.ts';
import { formatMs } from '../compare/format.ts';

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escape for element content and quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** Untrusted one-line text, ready for the page. */
export function text(value: string, maxLength = 200): string {
  return escapeHtml(sanitizeText(value, maxLength));
}

/** Untrusted multi-line text (pretty-printed evidence): lines kept, each line sanitized. */
export function preformatted(value: string, maxLength = 20_000): string {
  const capped = value.length > maxLength ? `${value.slice(0, maxLength)}\n… (${value.length - maxLength} more characters)` : value;
  return capped
    .split('\n')
    .map((line) => escapeHtml(sanitizeText(line, 1000)))
    .join('\n');
}

// Formatters of the report's figures: trusted output, safe to put in HTML as they are.
export const ms = (value: number): string => `${formatMs(value)} ms`;
export const percent = (fraction: number): string => `${(fraction * 100).toFixed(2)}%`;
export const count = (n: number): string => groupThousands(n);

/** A cell value, with the baseline's value under it when there is one (pre-escaped HTML in, HTML out). */
export function withBaseline(value: string, baselineValue: string | undefined): string {
  return baselineValue === undefined ? value : `${value}<span class="base" title="baseline">${baselineValue}</span>`;
}

/** An untrusted name as inline code. */
export const code = (value: string, maxLength = 120): string => `<code>${text(value, maxLength)}</code>`;
