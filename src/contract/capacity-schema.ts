/**
 * The `capacity` record of a result file written by `rpcload capacity` (`run.kind: "capacity"`):
 * the answer, its bracket, what limited it, the confirmation, every step of the search and, for
 * the closed model, the Universal Scalability Law fit. Part of `rpcload/result@1`
 * (result-schema.ts embeds it); each step's histograms are the file's `histograms.byPhase[phase]`.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';

const Ms = Type.Number({ minimum: 0, description: 'milliseconds, 3 decimals' });
const Rate = Type.Number({ minimum: 0, description: 'per second' });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const StepPercentiles = Type.Object(
  { p50: Ms, p90: Ms, p99: Ms, max: Ms },
  { additionalProperties: false, description: 'Percentiles of the measured hold, ms' },
);

export const CapacityLimitSchema = Type.Union(
  [
    Type.Literal('latency'),
    Type.Literal('errors'),
    Type.Literal('throughput'),
    Type.Literal('client quota'),
    Type.Literal('generator'),
    Type.Literal('max'),
    Type.Literal('none'),
  ],
  {
    description:
      "What ended the search: an SLO line on latency or errors, the achieved rate falling behind the offered (throughput), the clients' quotas, the load generator itself, the configured max, or nothing (aborted, or no step passed)",
  },
);

export const CapacityStepSchema = Type.Object(
  {
    index: Type.Integer({ minimum: 1 }),
    kind: Type.Union([Type.Literal('search'), Type.Literal('confirm')]),
    /** Open model: arrivals per second; closed model: virtual users. */
    load: Type.Number({
      minimum: 0,
      description: 'offered rate (open model, per second) or virtual users (closed model)',
    }),
    phase: Type.String({ description: 'the measured hold: its key in byPhase and histograms.byPhase' }),
    warmUpPhase: Type.Union([Type.String(), Type.Null()], { description: 'the warm-up phase before it, if any' }),
    holdS: Type.Number({ minimum: 0 }),
    requests: Type.Integer({ minimum: 0 }),
    offeredPerS: Rate,
    achievedPerS: Type.Number({ minimum: 0, description: 'responses completed within the hold, per second' }),
    latencyMs: StepPercentiles,
    serviceTimeMs: StepPercentiles,
    scheduleLagMs: Type.Union([StepPercentiles, Type.Null()]),
    errorRate: Type.Number({ minimum: 0, maximum: 1 }),
    rateLimitedRate: Type.Number({ minimum: 0, maximum: 1 }),
    verdict: Type.Union([Type.Literal('pass'), Type.Literal('fail'), Type.Literal('generator-bound')]),
    decidedBy: Type.Union([Type.String(), Type.Null()], {
      description: 'the first SLO line the step failed, null when it passed',
    }),
    retried: Type.Optional(
      Type.Boolean({ description: 'true: this attempt did not pass and was run once more; the retry counts' }),
    ),
    stoppedAtMs: Type.Optional(
      Type.Number({
        minimum: 0,
        description: 'an abortOnFail SLO line (decidedBy) failed this long into the hold: the step ended there, failed',
      }),
    ),
    slo: Type.Array(
      Type.Object(
        { expr: Type.String(), actual: Type.Union([Type.Number(), Type.Null()]), ok: Type.Boolean() },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const UslFitSchema = Type.Object(
  {
    sigma: Type.Number({ description: 'contention coefficient σ' }),
    kappa: Type.Number({ description: 'coherency coefficient κ' }),
    lambda: Type.Number({ description: 'throughput of one user, per second' }),
    peakConcurrency: Nullable(Type.Number({ description: '√((1 − σ) / κ); null when κ = 0 (no peak)' })),
    peakThroughputPerS: Nullable(Type.Number()),
    rmsRelativeError: Type.Number({
      minimum: 0,
      description: 'root-mean-square of (fitted − measured) / measured over the points',
    }),
    points: Type.Integer({ minimum: 0 }),
  },
  {
    additionalProperties: false,
    description:
      'Universal Scalability Law X(N) = λN / (1 + σ(N − 1) + κN(N − 1)) fitted to the passing and failing steps',
  },
);

export const CapacityRecordSchema = Type.Object(
  {
    model: Type.Union([Type.Literal('open'), Type.Literal('closed')]),
    workload: Type.Optional(
      Type.String({
        description:
          'the workload searched (its name; "default" in a profile without workloads); the others ran beside it ' +
          'as configured, and the steps judged its requests only',
      }),
    ),
    ratePerS: Nullable(
      Type.Number({
        minimum: 0,
        description: 'the highest rate that met the SLO (closed model: the throughput at concurrency)',
      }),
    ),
    concurrency: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
    speed: Type.Optional(
      Nullable(
        Type.Number({
          minimum: 0,
          description:
            'capacity --replay: the highest speed factor of the recording that met the SLO (ratePerS is its calls per second; bracket and step loads are speeds)',
        }),
      ),
    ),
    atLeast: Type.Boolean({
      description:
        'true when the search could not go higher (generator, quota or max bound): the capacity is at least ratePerS',
    }),
    bracket: Type.Tuple([Nullable(Type.Number()), Nullable(Type.Number())], {
      description: '[last pass, first fail] in the searched unit',
    }),
    limitedBy: CapacityLimitSchema,
    finding: Type.String({ description: 'the answer in one line' }),
    slo: Type.Array(Type.String(), {
      description: 'the SLO lines each step was judged by, the implicit throughput line included',
    }),
    confirmation: Type.Union([
      Type.Object(
        {
          load: Type.Number({ minimum: 0 }),
          holdS: Type.Number({ minimum: 0 }),
          passed: Type.Boolean(),
          steppedDownFrom: Nullable(Type.Number()),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ]),
    search: Type.Object(
      {
        start: Type.Number(),
        factor: Type.Number(),
        tolerance: Type.Number(),
        warmUpS: Type.Number(),
        holdS: Type.Number(),
        confirmS: Type.Number(),
        maxLagMs: Ms,
        include429: Type.Boolean(),
      },
      { additionalProperties: false },
    ),
    steps: Type.Array(CapacityStepSchema),
    usl: Type.Optional(Type.Union([UslFitSchema, Type.Null()])),
  },
  { additionalProperties: false },
);

export type CapacityLimit = Static<typeof CapacityLimitSchema>;
export type CapacityStep = Static<typeof CapacityStepSchema>;
export type UslFit = Static<typeof UslFitSchema>;
export type CapacityRecord = Static<typeof CapacityRecordSchema>;
