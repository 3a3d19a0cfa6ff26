/**
 * How each check state looks: a symbol and a word, so a state reads the same without colour
 * (NO_COLOR, CI logs), plus the style the dashboard colours it with. Running checks get a
 * braille spinner that advances with the clock.
 */
import type { Style } from '../text/styled.ts';
import type { CheckState } from '../../contract/live-view.ts';

export const STATE_MARK: Readonly<Record<CheckState, { readonly symbol: string; readonly word: string; readonly style: Style }>> = {
  waiting: { symbol: '·', word: 'wait', style: 'dim' },
  running: { symbol: '▸', word: 'RUN', style: 'accent' },
  pass: { symbol: '✓', word: 'PASS', style: 'ok' },
  fail: { symbol: '✗', word: 'FAIL', style: 'bad' },
  skip: { symbol: '–', word: 'SKIP', style: 'warn' },
};

const SPINNER = '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏';

/** The mark of a state, 6 cells wide: `✓ PASS`; a running one spins with `nowMs`. */
export function stateMark(state: CheckState, nowMs: number): string {
  const { symbol, word } = STATE_MARK[state];
  const shown = state === 'running' ? SPINNER[Math.floor(nowMs / 250) % SPINNER.length]! : symbol;
  return `${shown} ${word}`.padEnd(6);
}
