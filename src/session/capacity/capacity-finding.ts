/**
 * The answer of a capacity search in one line, from the answer, its bracket and the steps: what
 * was found, in the searched unit (a rate, users, or a speed of the recording) and — when the
 * profile has several workloads — of which workload (`checkout: capacity 46 iterations/s (…)`),
 * the bracket, what limited it and how (the SLO line, or the clients' quota arithmetic), and the
 * confirmation. Pure.
 */
import type { CapacityStep } from '../../contract/capacity-schema.ts';
import type { CapacityAnswer } from './capacity-answer.ts';

/** What a step's load counts: arrivals per second, virtual users, or (capacity --replay) a speed of the recording. */
export type SearchedUnit = 'open' | 'closed' | 'replay';

const unitOf = (searched: SearchedUnit): string =>
  searched === 'open' ? '/s' : searched === 'replay' ? '×' : ' users';

/** A load in its unit: "40/s", "8 users", "2.5×"; "–" for none. */
export const showLoad = (n: number | null, searched: SearchedUnit): string =>
  n === null ? '–' : `${n}${unitOf(searched)}`;

export interface FindingInput {
  readonly searched: SearchedUnit;
  readonly answer: CapacityAnswer;
  /** Calls (or requests) per second at the answer; null without one. */
  readonly ratePerS: number | null;
  /** Every step of the search and the confirmation, in order. */
  readonly steps: readonly CapacityStep[];
  /** The quota arithmetic of the step that failed at the bracket's top, when the clients' quotas limited it. */
  readonly quotaText: string | null;
  /** The workload searched, when the answer names it (several workloads); null or absent: not named. */
  readonly workload?: NamedWorkload | null;
}

/** A workload the answer names, and what its rate counts (an open-model search). */
export interface NamedWorkload {
  readonly name: string;
  /** Its scenarios' iterations started per second are its requests when each is one step. */
  readonly rateNoun: 'requests' | 'iterations';
}

const list = (items: readonly string[]): string =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)!}`;

/** "; confirmed over 15 s", "; NOT confirmed: 2× and 1.9× failed p99 < 250ms over 15 s", or nothing. */
function confirmationText(input: FindingInput): string {
  const confirms = input.steps.filter((s) => s.kind === 'confirm');
  const last = confirms.at(-1);
  if (last === undefined) return '';
  const show = (n: number): string => showLoad(n, input.searched);
  if (last.verdict === 'pass') {
    const from = confirms[0]!.load !== last.load ? ` after stepping down from ${show(confirms[0]!.load)}` : '';
    return `; confirmed over ${last.holdS} s${from}`;
  }
  return `; NOT confirmed: ${list(confirms.map((s) => show(s.load)))} failed ${last.decidedBy ?? 'the SLO'} over ${last.holdS} s`;
}

/** "limited by latency (p99 < 250ms failed at 2.1×)", with the quota arithmetic when the quotas limited it. */
function limitText(input: FindingInput): string {
  const { answer, searched } = input;
  const top = answer.bracket[1];
  const decisive = answer.decisive;
  const step =
    decisive === null
      ? undefined
      : input.steps.find(
          (s) => s.kind === decisive.kind && s.load === decisive.load && s.verdict === 'fail' && s.retried !== true,
        );
  const line = step?.decidedBy ? `${step.decidedBy} failed at ${showLoad(top, searched)}` : null;
  const how =
    answer.limitedBy === 'client quota' && input.quotaText !== null
      ? [line, input.quotaText].filter(Boolean).join(': ')
      : line;
  return `limited by ${answer.limitedBy}${how === null ? '' : ` (${how})`}`;
}

/** The answer in one line, after the workload's name when it is named. */
export function capacityFinding(input: FindingInput): string {
  const text = findingText(input);
  return input.workload == null ? text : `${input.workload.name}: ${text}`;
}

function findingText(input: FindingInput): string {
  const { answer: a, searched, ratePerS } = input;
  const show = (n: number | null): string => showLoad(n, searched);
  // A named workload's rate says what it counts: its requests, or its scenarios' iterations, per second.
  const answerText = (n: number): string =>
    searched === 'open' && input.workload != null ? `${n} ${input.workload.rateNoun}/s` : show(n);
  if (a.answer === null) {
    const lowest = [...input.steps.filter((s) => s.kind === 'search' && s.retried !== true)].sort(
      (x, y) => x.load - y.load,
    )[0];
    if (a.why !== null && a.limitedBy !== 'none') return `no capacity measured: ${a.why}`;
    if (lowest === undefined) return `no capacity measured: ${a.why ?? 'no step ran'}`;
    return `no load met the SLO: the lowest step, ${show(lowest.load)}, failed ${lowest.decidedBy ?? 'it'}`;
  }
  const head = `capacity ${a.atLeast ? 'at least ' : ''}${answerText(a.answer)}`;
  const [low, high] = a.bracket;
  const bracket =
    high === null ? 'bracket open' : `bracket ${show(low)}${searched === 'replay' ? '–' : ' – '}${show(high)}`;
  const confirmed = confirmationText(input);
  if (searched === 'replay') {
    // "capacity 3.4× the recording (1,530 calls/s; bracket 3.3×–3.5×); limited by latency (p99 < 250ms failed at 3.5×)"
    const calls = `${(ratePerS ?? 0).toLocaleString('en-US')} calls/s`;
    if (a.why !== null) return `${head} the recording (${calls}; ${a.why})${confirmed}`;
    return `${head} the recording (${calls}; ${bracket})${high === null ? '' : `; ${limitText(input)}`}${confirmed}`;
  }
  const what = searched === 'closed' ? `${head} (${ratePerS ?? 0}/s)` : head;
  const detail = a.why ?? (high === null ? bracket : `${bracket}; ${limitText(input)}`);
  return `${what} (${detail})${confirmed}`;
}
