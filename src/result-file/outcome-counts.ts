/**
 * A result file's outcome counts must fit its request counts: every request ends in exactly one
 * outcome, and rpcload keeps at most 64 outcome keys (further error keys are `error:other`). A file
 * whose outcomes add up to more requests than it records, or with thousands of keys, was not
 * written by rpcload as it is: compare, merge and report would show its figures as a run's.
 */
import type { RunResult, Stats } from '../contract/result-schema.ts';

/** Outcome keys one `outcomes` object may hold: far above what any run or merge writes (64), far below a flood. */
export const MAX_OUTCOME_KEYS_IN_FILE = 1000;

const escape = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** Every `{requests, outcomes}` of the file, with its JSON pointer. */
function countedSections(result: RunResult): [string, Pick<Stats, 'requests' | 'outcomes'>][] {
  const sections: [string, Pick<Stats, 'requests' | 'outcomes'>][] = [
    ['/summary', result.summary],
    ['/summary/tokens', result.summary.tokens],
  ];
  for (const name of ['byMethod', 'byPhase', 'byOutcome', 'byClient'] as const)
    for (const [key, stats] of Object.entries(result[name])) sections.push([`/${name}/${escape(key)}`, stats]);
  return sections;
}

/**
 * The first `outcomes` that holds more keys than MAX_OUTCOME_KEYS_IN_FILE or counts more requests
 * than its `requests`, as one line (`/summary/outcomes: counts add up to 2400, but
 * /summary/requests is 1200`); null when they all fit.
 */
export function outcomeCountProblem(result: RunResult): string | null {
  for (const [pointer, { requests, outcomes }] of countedSections(result)) {
    const counts = Object.values(outcomes);
    if (counts.length > MAX_OUTCOME_KEYS_IN_FILE)
      return `${pointer}/outcomes: holds ${counts.length} outcome keys; expected at most ${MAX_OUTCOME_KEYS_IN_FILE} (rpcload writes at most 64)`;
    const sum = counts.reduce((a, b) => a + b, 0);
    if (sum > requests) return `${pointer}/outcomes: counts add up to ${sum}, but ${pointer}/requests is ${requests}`;
  }
  return null;
}
