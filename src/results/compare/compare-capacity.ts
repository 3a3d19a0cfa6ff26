/**
 * `rpcload compare` of two capacity result files: the knee of each (capacity, bracket, what
 * limited it, the latency at the answer) and one verdict. The noise is the search's own: each
 * capacity is only known to lie in its bracket [last pass, first fail], so the change counts as a
 * regression only when even the top of the head's bracket is below the base's capacity by more
 * than the rule (`capacity:-10%` by default); "at least" answers (generator, quota or max bound)
 * have no top and never regress.
 */
import type { CapacityRecord } from '../../contract/capacity-schema.ts';
import type { RunResult } from '../../contract/result-schema.ts';
import { RpcloadError } from '../../errors.ts';
import { sanitizeText } from '../../util/sanitize.ts';
import type { LabelledResult } from './compare-runs.ts';

export const DEFAULT_CAPACITY_RULE = 'capacity:-10%';
const RULE = /^capacity:-(\d+(?:\.\d+)?)%$/;

export interface CapacityKnee {
  readonly label: string;
  readonly runLabel: string | null;
  readonly startedAt: string;
  readonly model: 'open' | 'closed';
  readonly ratePerS: number | null;
  readonly concurrency: number | null;
  readonly bracket: readonly [number | null, number | null];
  readonly atLeast: boolean;
  readonly limitedBy: string;
  readonly confirmed: boolean | null;
  /** p50/p99 of the step that gave the answer (the confirmation when there was one), ms. */
  readonly p50Ms: number | null;
  readonly p99Ms: number | null;
  readonly finding: string;
}

export type CapacityVerdict = 'regression' | 'worse' | 'within noise' | 'improvement' | 'n/a';

export interface CapacityComparison {
  readonly schema: 'rpcload/compare-capacity@1';
  readonly base: CapacityKnee;
  readonly head: CapacityKnee;
  /** The rule as written; null = report only. */
  readonly rule: string | null;
  /** (head − base) / base of the capacities; null when either is missing. */
  readonly change: number | null;
  /** Relative uncertainty: the two brackets' widths over the base capacity. */
  readonly noise: number | null;
  readonly verdict: CapacityVerdict;
  readonly regression: boolean;
}

/** The capacity rule among `--fail-on` rules: `capacity:-N%`, "none", or the default when none is given. */
export function capacityRule(failOn: string | null): { readonly text: string; readonly drop: number } | null {
  if (failOn === null) return { text: DEFAULT_CAPACITY_RULE, drop: 0.1 };
  const rules = failOn.split(',').map((r) => r.trim());
  if (rules.includes('none')) return null;
  const capacity = rules.filter((r) => r.startsWith('capacity:'));
  if (capacity.length === 0) return { text: DEFAULT_CAPACITY_RULE, drop: 0.1 };
  const match = RULE.exec(capacity[0]!);
  if (!match) throw new RpcloadError('bad_flag', `--fail-on: expected capacity:-N% (e.g. capacity:-10%), found ${JSON.stringify(capacity[0])}`);
  return { text: capacity[0]!, drop: Number(match[1]) / 100 };
}

function kneeOf({ label, result }: LabelledResult): CapacityKnee {
  const record: CapacityRecord | undefined = result.capacity;
  if (result.run.kind !== 'capacity' || record === undefined)
    throw new RpcloadError('incomparable', `${label}: run.kind: expected a capacity result (both files must come from rpcload capacity), found ${JSON.stringify(result.run.kind)}`);
  const answerStep =
    record.steps.find((s) => s.kind === 'confirm' && s.load === record.confirmation?.load) ??
    record.steps.find((s) => s.kind === 'search' && s.retried !== true && s.load === record.bracket[0]);
  return {
    label,
    runLabel: result.run.label ?? null,
    startedAt: result.run.startedAt,
    model: record.model,
    ratePerS: record.ratePerS,
    concurrency: record.concurrency ?? null,
    bracket: callsBracket(record),
    atLeast: record.atLeast,
    limitedBy: record.limitedBy,
    confirmed: record.confirmation === null ? null : record.confirmation.passed,
    p50Ms: answerStep?.latencyMs.p50 ?? null,
    p99Ms: answerStep?.latencyMs.p99 ?? null,
    finding: record.finding,
  };
}

/**
 * The bracket in the unit of ratePerS: a replay's search brackets speeds of its recording, which
 * its calls per second at speed 1 convert to calls per second (so two replays compare by calls/s)
 * — taken from the answer, or from a step's offered rate when there is no answer.
 */
function callsBracket(record: CapacityRecord): CapacityRecord['bracket'] {
  const { speed, ratePerS } = record;
  if (speed === undefined) return record.bracket;
  const step = record.steps.find((s) => s.load > 0);
  const perSpeed =
    speed !== null && speed > 0 && ratePerS !== null ? ratePerS / speed : step === undefined ? null : step.offeredPerS / step.load;
  if (perSpeed === null) return [null, null];
  const calls = (load: number | null): number | null => (load === null ? null : Math.round(load * perSpeed * 1000) / 1000);
  return [calls(record.bracket[0]), calls(record.bracket[1])];
}

/** True when the file is a capacity result. */
export const isCapacityResult = (result: RunResult): boolean => result.run.kind === 'capacity';

/** The relative width of a knee's bracket ([last pass, first fail]); 0 when it has no top. */
function width(knee: CapacityKnee): number {
  const [low, high] = knee.bracket;
  return low !== null && high !== null && low > 0 ? (high - low) / low : 0;
}

export function compareCapacity(base: LabelledResult, head: LabelledResult, failOn: string | null): CapacityComparison {
  const rule = capacityRule(failOn);
  const b = kneeOf(base);
  const h = kneeOf(head);
  if (b.model !== h.model)
    throw new RpcloadError('incomparable', `cannot compare ${base.label} and ${head.label}: one searched the ${b.model} model, the other the ${h.model} model`);
  const outcome = (verdict: CapacityVerdict, change: number | null, noise: number | null, regression: boolean): CapacityComparison => ({
    schema: 'rpcload/compare-capacity@1',
    base: b,
    head: h,
    rule: rule?.text ?? null,
    change,
    noise,
    verdict,
    regression,
  });
  if (b.ratePerS === null || b.ratePerS === 0) return outcome('n/a', null, null, false);
  // The base found a capacity and the head none at all: nothing met the SLO any more.
  if (h.ratePerS === null) return outcome('regression', -1, null, rule !== null);
  const change = (h.ratePerS - b.ratePerS) / b.ratePerS;
  const noise = width(b) + width(h);
  const headTop = h.atLeast ? Number.POSITIVE_INFINITY : (h.bracket[1] ?? h.ratePerS);
  const beyondRule = rule !== null && headTop < b.ratePerS * (1 - rule.drop);
  if (beyondRule) return outcome('regression', change, noise, true);
  if (h.atLeast && change < 0) return outcome('within noise', change, noise, false);
  if (change < -noise) return outcome('worse', change, noise, false);
  if (change > noise && !b.atLeast) return outcome('improvement', change, noise, false);
  return outcome('within noise', change, noise, false);
}

const safe = (text: string, max = 80): string => sanitizeText(text, max);

function kneeLine(role: string, k: CapacityKnee): string {
  const unit = k.model === 'open' ? '/s' : ' users';
  const answer = k.ratePerS === null ? 'none' : `${k.atLeast ? '≥ ' : ''}${k.model === 'open' ? k.ratePerS : k.concurrency}${unit}`;
  const bracket = `[${k.bracket[0] ?? '–'}, ${k.bracket[1] ?? '–'}]`;
  const latency = k.p99Ms === null ? '' : `, p50 ${k.p50Ms} ms, p99 ${k.p99Ms} ms at the answer`;
  const confirmed = k.confirmed === null ? '' : k.confirmed ? ', confirmed' : ', NOT confirmed';
  return `${role}  ${answer}  bracket ${bracket}  limited by ${k.limitedBy}${confirmed}${latency}  (${safe(k.label)}${k.runLabel === null ? '' : `, ${safe(k.runLabel, 40)}`})`;
}

const pct = (x: number | null): string => (x === null ? '–' : `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`);

export function renderCapacityComparison(c: CapacityComparison): string {
  return [
    `rpcload compare (capacity): ${c.regression ? 'REGRESSION' : c.verdict}`,
    kneeLine('base', c.base),
    kneeLine('head', c.head),
    `change ${pct(c.change)}  noise ±${c.noise === null ? '–' : (c.noise * 100).toFixed(1)}% (the brackets)  rule ${c.rule ?? 'none'}`,
    '',
  ].join('\n');
}

export function renderCapacityComparisonMarkdown(c: CapacityComparison): string {
  const row = (role: string, k: CapacityKnee): string =>
    `| ${role} | \`${safe(k.label).replace(/[`|]/g, "'")}\` | ${k.runLabel === null ? '' : `\`${safe(k.runLabel, 40).replace(/[`|]/g, "'")}\``} | ${k.ratePerS === null ? '–' : `${k.atLeast ? '≥ ' : ''}${k.ratePerS}`} | ${k.bracket[0] ?? '–'} – ${k.bracket[1] ?? '–'} | ${k.limitedBy} | ${k.p99Ms ?? '–'} |`;
  return [
    `### rpcload capacity: ${c.regression ? '🔴 regression' : c.verdict === 'improvement' ? '🟢 improvement' : `⚪ ${c.verdict}`}`,
    '',
    '| | file | label | capacity /s | bracket | limited by | p99 ms |',
    '|---|---|---|--:|---|---|--:|',
    row('base', c.base),
    row('head', c.head),
    '',
    `Change ${pct(c.change)}, noise ±${c.noise === null ? '–' : (c.noise * 100).toFixed(1)}% (the search brackets), rule \`${c.rule ?? 'none'}\`.`,
    '',
  ].join('\n');
}
