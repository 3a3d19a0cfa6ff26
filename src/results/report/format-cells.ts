/** Small formatters shared by the report's tables: trusted output, safe to put in HTML. */
import { formatMs } from '../compare/format.ts';
import { text } from './html.ts';

export const ms = (value: number): string => `${formatMs(value)} ms`;
export const percent = (fraction: number): string => `${(fraction * 100).toFixed(2)}%`;
export const count = (n: number): string => n.toLocaleString('en-US');

/** A cell value, with the baseline's value under it when there is one (pre-escaped HTML in, HTML out). */
export function withBaseline(value: string, baselineValue: string | undefined): string {
  return baselineValue === undefined ? value : `${value}<span class="base" title="baseline">${baselineValue}</span>`;
}

/** An untrusted name as inline code. */
export const code = (value: string, maxLength = 120): string => `<code>${text(value, maxLength)}</code>`;
