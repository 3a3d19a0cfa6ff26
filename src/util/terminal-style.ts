/**
 * The one colour policy and the one ANSI painter for every terminal renderer (summary tables,
 * compare, verify, progress lines); the dashboard maps the same semantic styles to blessed tags.
 * Styles name a meaning (ok, warn, bad…), not a colour.
 */
export type Style = 'ok' | 'warn' | 'bad' | 'dim' | 'accent' | 'strong' | 'inverse';

const ANSI_CODE: Readonly<Record<Style, string>> = {
  ok: '32',
  warn: '33',
  bad: '31',
  dim: '2',
  accent: '36',
  strong: '1',
  inverse: '7',
};

/** The environment variables the policy reads. */
export interface ColourEnvironment {
  readonly NO_COLOR?: string | undefined;
  readonly FORCE_COLOR?: string | undefined;
  readonly TERM?: string | undefined;
}

/**
 * Whether styles may be used at all: not when NO_COLOR is set to anything but the empty string
 * (https://no-color.org), always when FORCE_COLOR is set to anything but "0" or "false".
 */
export function colourAllowed(env: ColourEnvironment): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return true;
}

/**
 * Colour on `stream`: a terminal that can show it (not TERM=dumb) and allowed by the environment;
 * FORCE_COLOR turns it on for pipes too (CI log viewers render ANSI).
 */
export function colourEnabled(stream: { readonly isTTY?: boolean }, env: ColourEnvironment = process.env): boolean {
  if (!colourAllowed(env)) return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false')
    return true;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

/** `text` in the given style(s) as ANSI escapes, or unchanged when `enabled` is false or there is no style. */
export function paint(text: string, style: Style | readonly Style[] | null, enabled: boolean): string {
  if (!enabled || style === null || text.length === 0) return text;
  const styles = typeof style === 'string' ? [style] : style;
  if (styles.length === 0) return text;
  return `\u001b[${styles.map((s) => ANSI_CODE[s]).join(';')}m${text}\u001b[0m`;
}
