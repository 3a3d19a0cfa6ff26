/**
 * HTML escaping for the report. Everything that comes from a result file — method names, check
 * ids, error codes, evidence — may have been chosen by a hostile server: it passes through `text`
 * (control characters removed, length capped, then escaped) and never reaches the page raw.
 */
import { sanitizeText } from '../../util/sanitize.ts';

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
