/**
 * The `capacity` section of a profile: how `rpcload capacity` searches (model, start, growth
 * factor, bracket tolerance, step warm-up and hold, confirmation hold) and the SLO a step must
 * meet (its own lines, else the profile's thresholds). Schema and resolution live together: the
 * section is small, and every default is stated once, here.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { ParsedThreshold } from './thresholds.ts';
import { parseThreshold } from './thresholds.ts';
import { expected, type Problem } from './problems.ts';
import { durationMs, POSITIVE, ALLOW_ZERO } from './resolve-durations.ts';
import { DurationSchema, OptionalFields } from './schema-settings.ts';

export const CAPACITY_DEFAULTS = {
  model: 'open',
  startOpen: 20,
  startClosed: 1,
  factor: 2,
  tolerance: 0.05,
  warmUp: '2s',
  hold: '5s',
  confirm: '15s',
  maxSteps: 30,
  maxLag: '20ms',
  include429: false,
} as const;
const C = CAPACITY_DEFAULTS;

export const CapacitySchema = OptionalFields(
  {
    model: Type.Union([Type.Literal('open'), Type.Literal('closed')], {
      default: C.model,
      description: `open = search the arrival rate (req/s); closed = search the concurrency (virtual users) and fit the Universal Scalability Law. Default "${C.model}".`,
    }),
    start: Type.Number({
      exclusiveMinimum: 0,
      description: `First step: a rate (open) or a number of virtual users (closed). Default ${C.startOpen}/s, or ${C.startClosed} user.`,
    }),
    factor: Type.Number({
      exclusiveMinimum: 1,
      default: C.factor,
      description: `Growth factor until a step fails. Default ${C.factor}.`,
    }),
    tolerance: Type.Number({
      exclusiveMinimum: 0,
      maximum: 1,
      default: C.tolerance,
      description: `Bisect until (first fail − last pass) / last pass is at most this. Default ${C.tolerance}.`,
    }),
    max: Type.Number({
      exclusiveMinimum: 0,
      description: 'Never step above this rate (or concurrency). Default: no cap.',
    }),
    warmUp: DurationSchema('Load at the step rate before the measured hold (whole seconds).', C.warmUp),
    hold: DurationSchema('Measured hold of each step (whole seconds).', C.hold),
    confirm: DurationSchema(
      'Hold of the final confirmation at the found rate (whole seconds; 0 = no confirmation).',
      C.confirm,
    ),
    maxSteps: Type.Integer({
      minimum: 1,
      default: C.maxSteps,
      description: `Stop after this many steps. Default ${C.maxSteps}.`,
    }),
    slo: Type.Array(Type.String(), {
      description:
        'The SLO lines a step must meet, in the threshold language (e.g. "p99 < 250ms", "error_rate < 1%"). Default: the profile\'s thresholds. Always added: the achieved rate within 1 % of the offered.',
    }),
    include429: Type.Boolean({
      default: C.include429,
      description: `Search past the rate the clients' quotas allow, counting 429s as answers. Default ${C.include429}: stop at the quota bound with a finding.`,
    }),
    maxLag: DurationSchema(
      'A step whose schedule lag p99 exceeds this is generator-bound (rpcload, not the server, was the limit).',
      C.maxLag,
    ),
    workload: Type.String({
      minLength: 1,
      description:
        'The workload to search when the profile has several (its name): its rate, users or replay speed; ' +
        'the others run beside it as configured. --workload overrides it. ' +
        'Default: the only workload (required with several).',
    }),
  },
  'How `rpcload capacity` searches for the highest rate (or concurrency) that meets the SLO.',
);
export type CapacitySettings = Static<typeof CapacitySchema>;

/** The resolved section. */
export interface CapacityPlan {
  readonly model: 'open' | 'closed';
  readonly start: number;
  /**
   * The profile (or a flag) set `start`; false: the default of the model, which the searched
   * workload may still change.
   */
  readonly startGiven: boolean;
  readonly factor: number;
  readonly tolerance: number;
  /** Rate (open) or concurrency (closed) cap; null = none. */
  readonly max: number | null;
  readonly warmUpMs: number;
  readonly holdMs: number;
  /** 0 = no confirmation. */
  readonly confirmMs: number;
  readonly maxSteps: number;
  /** The section's own SLO lines; null = use the profile's thresholds. */
  readonly slo: readonly ParsedThreshold[] | null;
  readonly include429: boolean;
  readonly maxLagMs: number;
  /** The workload searched (its name); null = the profile's only one. */
  readonly workload: string | null;
}

/** A duration that must be whole seconds (steps are measured per second), in ms. */
function wholeSecondsMs(text: string, pointer: string, problems: Problem[], allowZero: boolean): number {
  const ms = durationMs(text, pointer, problems, allowZero ? ALLOW_ZERO : POSITIVE);
  if (ms % 1000 !== 0) problems.push(expected(pointer, 'whole seconds (steps are measured per second)', text));
  return ms;
}

/** Resolve the section's fields that passed the schema; problems are reported with their JSON paths. */
export function resolveCapacity(fields: Partial<CapacitySettings>, problems: Problem[]): CapacityPlan {
  const model = fields.model ?? C.model;
  const slo =
    fields.slo?.flatMap((expr, index) => {
      try {
        return [parseThreshold(expr)];
      } catch (err) {
        problems.push({ path: `/capacity/slo/${index}`, message: (err as Error).message });
        return [];
      }
    }) ?? null;
  const start = fields.start ?? (model === 'open' ? C.startOpen : C.startClosed);
  if (model === 'closed' && !Number.isInteger(start))
    problems.push(expected('/capacity/start', 'a whole number of virtual users', start));
  return {
    model,
    start,
    startGiven: fields.start !== undefined,
    factor: fields.factor ?? C.factor,
    tolerance: fields.tolerance ?? C.tolerance,
    max: fields.max ?? null,
    warmUpMs: wholeSecondsMs(fields.warmUp ?? C.warmUp, '/capacity/warmUp', problems, true),
    holdMs: wholeSecondsMs(fields.hold ?? C.hold, '/capacity/hold', problems, false),
    confirmMs: wholeSecondsMs(fields.confirm ?? C.confirm, '/capacity/confirm', problems, true),
    maxSteps: fields.maxSteps ?? C.maxSteps,
    slo,
    include429: fields.include429 ?? C.include429,
    maxLagMs: durationMs(fields.maxLag ?? C.maxLag, '/capacity/maxLag', problems, POSITIVE),
    workload: fields.workload ?? null,
  };
}
