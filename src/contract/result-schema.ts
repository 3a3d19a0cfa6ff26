/**
 * The result file contract, `rpcload/result@1` (docs/result-file.md). This TypeBox schema is the
 * single source: the TypeScript types below are derived from it, `schemas/result.schema.json` is
 * generated from it (a test keeps the committed copy identical), and every file the tool writes is
 * validated against it in tests.
 *
 * Units: durations in milliseconds with 3 decimals (`…Ms`), rates per second, `t` in whole
 * seconds since `run.startedAt`. Outcome keys: `success`, `error:<code>`, `http:<status>`,
 * `transport:<code>`, `envelope_violation`, `content_encoding:<coding>`.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { CapacityRecordSchema } from './capacity-schema.ts';
import { ReplaySourceSchema } from './replay-source-schema.ts';

export const RESULT_SCHEMA_ID = 'rpcload/result@1';

const Ms = Type.Number({ minimum: 0, description: 'milliseconds, 3 decimals' });
const Count = Type.Integer({ minimum: 0 });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const PercentilesSchema = Type.Object(
  { min: Ms, mean: Ms, p50: Ms, p90: Ms, p99: Ms, p999: Ms, max: Ms },
  { additionalProperties: false, description: 'Latency distribution in ms; all 0 when there were no samples' },
);

export const OutcomeCountsSchema = Type.Record(Type.String({ minLength: 1 }), Count, {
  description:
    'Requests by outcome: success, error:<code>, http:<status>, transport:<code>, envelope_violation, content_encoding:<coding>',
});

export const StatsSchema = Type.Object(
  {
    requests: Count,
    rps: Type.Number({ minimum: 0 }),
    latencyMs: PercentilesSchema,
    serviceTimeMs: PercentilesSchema,
    outcomes: OutcomeCountsSchema,
  },
  {
    additionalProperties: false,
    description:
      'latencyMs is measured from the intended start (open model: coordinated-omission-correct) or the send (closed model); serviceTimeMs always from the actual send',
  },
);

export const PhaseStatsSchema = Type.Composite(
  [
    StatsSchema,
    Type.Object({
      scheduleLagMs: Type.Optional(PercentilesSchema),
    }),
  ],
  {
    additionalProperties: false,
    description: `${StatsSchema.description}; scheduleLagMs (actual send − intended start) only in an open-model phase`,
  },
);

export const GoodputSchema = Type.Object(
  {
    requests: Count,
    perS: Type.Number({ minimum: 0, description: 'requests / durationS, 3 decimals' }),
    latencyBoundMs: Nullable(Type.Number({ minimum: 0 })),
  },
  {
    additionalProperties: false,
    description:
      'Requests that succeeded within the latency bound of the run\'s SLO (the tightest overall latency threshold, e.g. "p99 < 250ms"); latencyBoundMs null: no such threshold, every success counts',
  },
);

export const SummarySchema = Type.Composite(
  [
    StatsSchema,
    Type.Object({
      durationS: Type.Number({ minimum: 0 }),
      scheduleLagMs: Nullable(PercentilesSchema),
      tokens: Type.Object(
        { requests: Count, failures: Count, latencyMs: PercentilesSchema, outcomes: OutcomeCountsSchema },
        { additionalProperties: false, description: 'Token requests, timed and counted apart from the API figures' },
      ),
      skipped: Type.Record(Type.String(), Count, {
        description: 'Arrivals not sent, by reason (e.g. "all clients backing off", "max in-flight reached")',
      }),
      connections: Type.Optional(
        Type.Object(
          {
            opened: Count,
            byProtocol: Type.Record(Type.String(), Count, {
              description: 'Connections by the protocol each negotiated (ALPN id): h2, http/1.1',
            }),
          },
          {
            additionalProperties: false,
            description:
              "The load's connections and the protocol each negotiated; absent in files written before it was counted",
          },
        ),
      ),
      goodput: Type.Optional(GoodputSchema),
    }),
  ],
  { additionalProperties: false },
);

export const TimelineRowSchema = Type.Object(
  {
    t: Type.Integer({ minimum: 0, description: 'whole seconds since run.startedAt' }),
    requests: Count,
    success: Count,
    rateLimited: Count,
    errors: Count,
    p50: Ms,
    p99: Ms,
  },
  { additionalProperties: false },
);

const EncodedHistogram = Type.String({ description: 'HdrHistogram V2 compressed base64, values in microseconds' });
const HistogramPair = Type.Object(
  { latency: EncodedHistogram, serviceTime: EncodedHistogram },
  { additionalProperties: false },
);
const HistogramTriple = Type.Object(
  { latency: EncodedHistogram, serviceTime: EncodedHistogram, scheduleLag: Type.Optional(EncodedHistogram) },
  { additionalProperties: false },
);

export const HistogramsSchema = Type.Object(
  {
    latency: EncodedHistogram,
    serviceTime: EncodedHistogram,
    scheduleLag: Type.Optional(EncodedHistogram),
    scheduleLagByPhase: Type.Optional(
      Type.Record(Type.String(), EncodedHistogram, { description: 'Schedule lag of each open-model phase' }),
    ),
    tokens: Type.Optional(EncodedHistogram),
    byMethod: Type.Record(Type.String(), HistogramPair),
    byPhase: Type.Record(Type.String(), HistogramPair),
    byOutcome: Type.Record(Type.String(), HistogramPair),
    byClient: Type.Record(Type.String(), HistogramPair, {
      description: 'Low-precision (1 significant digit) histograms, small enough to keep one per client',
    }),
    byReplica: Type.Optional(
      Type.Record(Type.String(), HistogramPair, {
        description: 'Per replica the load was spread over (run --replica)',
      }),
    ),
    byWorkload: Type.Optional(
      Type.Record(Type.String(), HistogramTriple, {
        description: 'Per workload (its schedule lag when it had open-model requests)',
      }),
    ),
    byTag: Type.Optional(Type.Record(Type.String(), HistogramPair, { description: 'Per step tag, keyed "key:value"' })),
    bySelector: Type.Optional(
      Type.Record(Type.String(), HistogramTriple, {
        description:
          'Per threshold selector (canonical text, e.g. "method:ping,workload:browse"): the requests it picks',
      }),
    ),
  },
  { additionalProperties: false, description: 'Mergeable histograms behind every percentile in the file' },
);

export const WorkloadPhaseSchema = Type.Object(
  {
    name: Type.String({ description: "the phase's own name within its workload" }),
    requests: Count,
    offeredPerS: Nullable(
      Type.Number({
        minimum: 0,
        description:
          'arrivals per second its schedule asked for (open model; a replay: its recording at its speed); null in a closed model',
      }),
    ),
    achievedPerS: Type.Number({ minimum: 0, description: 'requests per second it sent' }),
  },
  { additionalProperties: false },
);

export const WorkloadStatsSchema = Type.Composite(
  [
    PhaseStatsSchema,
    Type.Object({
      kind: Type.Union(
        [
          Type.Literal('rate'),
          Type.Literal('concurrency'),
          Type.Literal('iterations'),
          Type.Literal('replay'),
          Type.Literal('mixed'),
        ],
        {
          description:
            'its load: phases of a rate or of a concurrency (mixed when it has both), iterations per client, or a replay',
        },
      ),
      clients: Count,
      goodput: Type.Optional(GoodputSchema),
      phases: Type.Array(WorkloadPhaseSchema),
      replay: Type.Optional(ReplaySourceSchema),
    }),
  ],
  {
    additionalProperties: false,
    description:
      'One workload: its requests, outcomes, latency and service time, schedule lag (open model), goodput, and offered vs achieved per phase',
  },
);

export const SetupRecordSchema = Type.Object(
  {
    client: Type.String(),
    status: Type.Union([Type.Literal('ok'), Type.Literal('failed'), Type.Literal('skipped')]),
    reason: Type.Optional(Type.String({ description: 'why it failed or was skipped' })),
    requests: Count,
    outcomes: OutcomeCountsSchema,
    latencyMs: PercentilesSchema,
    saved: Type.Array(Type.String(), {
      description: 'the names of the values it saved ({{setup.NAME}}); never the values',
    }),
    fromFile: Type.Optional(
      Type.String({ description: 'setup did not run here: its values came from this file (run --setup-values)' }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Setup or teardown steps: counted apart from the load, never in its latency or thresholds',
  },
);

export const RunStopSchema = Type.Object(
  {
    reason: Type.Literal('threshold'),
    threshold: Type.String({ description: 'the abortOnFail threshold that failed, as written' }),
    atMs: Ms,
  },
  { additionalProperties: false, description: 'Why the run stopped before its end by itself (status aborted, exit 1)' },
);

export const RateLimitPeriodSchema = Type.Object(
  {
    t: Type.Integer({ minimum: 0, description: 'period start, whole seconds since run.startedAt' }),
    admitted: Count,
    refused: Count,
  },
  { additionalProperties: false },
);

export const RateLimitClientSchema = Type.Object(
  {
    sent: Count,
    admitted: Count,
    refused: Count,
    periods: Type.Array(RateLimitPeriodSchema, {
      description: 'Admitted/refused per contract window, windows aligned to run start; only periods with traffic',
    }),
    periodsTruncated: Type.Boolean(),
    retryAfterS: Type.Record(Type.String(), Count, { description: 'Retry-After values seen → how often' }),
  },
  { additionalProperties: false },
);

export const RateLimitObservationSchema = Type.Object(
  {
    client: Type.String(),
    kind: Type.Union(
      [
        Type.Literal('announced_window'),
        Type.Literal('first_refusal'),
        Type.Literal('honoured_retry'),
        Type.Literal('missing_retry_after'),
      ],
      {
        description:
          'announced_window: a refusal streak, the reset its Retry-After announced (resetFromMs–resetToMs) and the admissions inside the window before it (admittedMin–admittedMax), with its reading; first_refusal: files written before announced windows',
      },
    ),
    atMs: Ms,
    detail: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()])),
  },
  { additionalProperties: false },
);

export const RateLimitSchema = Type.Object(
  {
    limit: Type.Integer({ minimum: 1 }),
    windowS: Type.Number({ exclusiveMinimum: 0 }),
    policy: Type.Union([Type.Literal('honour'), Type.Literal('ignore')]),
    clients: Type.Record(Type.String(), RateLimitClientSchema),
    observations: Type.Array(RateLimitObservationSchema, {
      description: 'Capped; the first ones of each kind per client',
    }),
  },
  { additionalProperties: false },
);

export const CheckVerdictSchema = Type.Union([Type.Literal('pass'), Type.Literal('fail'), Type.Literal('skip')]);

export const SkipClassSchema = Type.Union(
  [
    Type.Literal('not_applicable'),
    Type.Literal('target_broken'),
    Type.Literal('inconclusive'),
    Type.Literal('interrupted'),
    Type.Literal('internal_error'),
  ],
  {
    description:
      'why a skipped check was not judged: not_applicable (nothing to check with this configuration), target_broken (the target did not answer usably), inconclusive (answers that cannot decide), interrupted, internal_error',
  },
);

export const CheckResultSchema = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    verdict: CheckVerdictSchema,
    skipClass: Type.Optional(SkipClassSchema),
    detail: Type.String({ description: 'one-line reason' }),
    evidence: Type.Record(Type.String(), Type.Unknown(), {
      description: 'counts, timestamps, headers seen; secrets redacted',
    }),
    durationMs: Type.Optional(Ms),
    notes: Type.Optional(
      Type.Array(Type.String(), { description: 'informational findings that do not change the verdict' }),
    ),
  },
  { additionalProperties: false },
);

export const ThresholdResultSchema = Type.Object(
  {
    expr: Type.String(),
    actual: Nullable(Type.Number()),
    ok: Type.Boolean(),
    abortOnFail: Type.Optional(Type.Boolean({ description: 'judged live too: its failure stops the run' })),
  },
  { additionalProperties: false },
);

export const RunStatusSchema = Type.Union([
  Type.Literal('running'),
  Type.Literal('completed'),
  Type.Literal('aborted'),
  Type.Literal('failed'),
]);

/** In a shard's file (`run --shard I/N`): which part of which run it carried. */
export const ShardInfoSchema = Type.Object(
  {
    runId: Type.String({
      minLength: 1,
      description: 'shared by every shard of the run (--run-id, or derived from the profile and --start-at)',
    }),
    index: Type.Integer({ minimum: 1, description: 'this shard, counted from 1' }),
    count: Type.Integer({ minimum: 1 }),
    clients: Type.Integer({ minimum: 0, description: 'client IDs this shard carried' }),
    startAt: Nullable(
      Type.String({ format: 'date-time', description: 'the agreed start instant (--start-at), if any' }),
    ),
    startLateMs: Nullable(Type.Number({ description: 'how late this shard started its clock after startAt (ms)' })),
  },
  { additionalProperties: false },
);

/** In a merged file: the shard set it came from. */
export const ShardSetSchema = Type.Object(
  {
    runId: Type.String({ minLength: 1 }),
    count: Type.Integer({ minimum: 1, description: 'shards the run had' }),
    merged: Type.Array(Type.Integer({ minimum: 1 }), { description: 'shard indices present in this merge' }),
    missing: Type.Array(Type.Integer({ minimum: 1 }), {
      description: 'shard indices absent (only with merge --partial)',
    }),
    startSpreadMs: Nullable(Type.Number({ description: 'latest minus earliest clock start of the shards (ms)' })),
    maxStartLateMs: Nullable(
      Type.Number({ description: 'the latest shard start after startAt (ms), when --start-at was used' }),
    ),
  },
  { additionalProperties: false },
);

export const RunInfoSchema = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    kind: Type.Union([Type.Literal('run'), Type.Literal('verify'), Type.Literal('merge'), Type.Literal('capacity')]),
    label: Type.Optional(Type.String({ description: 'free text given with --label, e.g. the release under test' })),
    profile: Type.String(),
    startedAt: Type.String({ format: 'date-time' }),
    endedAt: Nullable(Type.String({ format: 'date-time' })),
    status: RunStatusSchema,
    failure: Type.Optional(Type.String({ description: 'why the run failed, when status is failed' })),
    stop: Type.Optional(RunStopSchema),
    target: Type.String(),
    embeddedTarget: Type.Boolean(),
    model: Type.Union([Type.Literal('open'), Type.Literal('closed'), Type.Literal('mixed'), Type.Literal('none')]),
    workers: Type.Integer({ minimum: 1 }),
    httpClient: Type.Optional(
      Type.Union([Type.Literal('rpcload'), Type.Literal('undici'), Type.Literal('mixed'), Type.Literal('fast')], {
        description:
          "the HTTP client that carried the load's API calls (http.client): rpcload (rpcload's own: its HTTP/1.1 " +
          "client, Node's http2 sessions on HTTP/2) or undici; mixed in a merge of shards that differ; fast in files " +
          'written while rpcload was called so. Absent in verify files and in files written before it was recorded',
      }),
    ),
    shards: Type.Integer({ minimum: 1, description: 'how many result files were merged into this one' }),
    shard: Type.Optional(ShardInfoSchema),
    shardSet: Type.Optional(ShardSetSchema),
    node: Type.String(),
    host: Type.String(),
  },
  { additionalProperties: false },
);

const HexId = (digits: number, what: string) => Type.String({ pattern: `^[0-9a-f]{${digits}}$`, description: what });

export const ExemplarSchema = Type.Object(
  {
    traceId: HexId(32, "W3C trace id: the iteration's, shared by its pagination walk and its steps"),
    spanId: HexId(16, 'W3C span id of this request'),
    sent: Type.Boolean({
      description:
        'the request carried this traceparent (false under http.traceContext off, or sampled for an unsampled trace)',
    }),
    sampled: Type.Boolean({ description: 'the sampled flag of its trace' }),
    intendedStartMs: Type.Number({ description: "when the request was due, ms since the run's start" }),
    latencyMs: Ms,
    serviceTimeMs: Ms,
    outcome: Type.String({ minLength: 1 }),
    status: Type.Integer({ minimum: 0, description: 'HTTP status; 0 when no response arrived' }),
    client: Type.String(),
    phase: Type.String(),
    kinds: Type.Array(Type.Union([Type.Literal('slowest'), Type.Literal('outcome'), Type.Literal('bucket')]), {
      description:
        "why it was kept: among the N slowest, a sample of its outcome (not success), its latency bucket's sample",
    }),
    bucketLeMs: Type.Optional(
      Nullable(Type.Number({ description: "a bucket exemplar's bucket upper bound (ms); null above the last bound" })),
    ),
  },
  { additionalProperties: false },
);

export const RunResultSchema = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    schema: Type.Literal(RESULT_SCHEMA_ID),
    tool: Type.Object({ name: Type.Literal('rpcload'), version: Type.String() }, { additionalProperties: false }),
    run: RunInfoSchema,
    config: Type.Record(Type.String(), Type.Unknown(), { description: 'resolved profile/plan, secrets redacted' }),
    summary: SummarySchema,
    byMethod: Type.Record(Type.String(), StatsSchema),
    byClient: Type.Record(Type.String(), StatsSchema),
    byPhase: Type.Record(Type.String(), PhaseStatsSchema),
    byOutcome: Type.Record(Type.String(), StatsSchema),
    byReplica: Type.Optional(
      Type.Record(Type.String(), StatsSchema, {
        description:
          'Per replica (its base URL) the load was spread over with run --replica: requests, outcomes, latency; absent without replicas',
      }),
    ),
    byWorkload: Type.Optional(
      Type.Record(Type.String(), WorkloadStatsSchema, {
        description:
          'Per workload (a profile without workloads has one, "default"); absent in files written before workloads',
      }),
    ),
    byTag: Type.Optional(
      Type.Record(Type.String(), StatsSchema, { description: 'Per step tag, keyed "key:value"; absent without tags' }),
    ),
    bySelector: Type.Optional(
      Type.Record(Type.String(), PhaseStatsSchema, {
        description:
          'The requests each threshold selector picks (keyed by its canonical text): what scoped thresholds are judged on',
      }),
    ),
    setup: Type.Optional(SetupRecordSchema),
    teardown: Type.Optional(SetupRecordSchema),
    timeline: Type.Array(TimelineRowSchema),
    histograms: HistogramsSchema,
    rateLimit: Nullable(RateLimitSchema),
    checks: Type.Array(CheckResultSchema),
    thresholds: Type.Array(ThresholdResultSchema),
    warnings: Type.Array(Type.String(), { description: 'e.g. the generator, not the server, was the bottleneck' }),
    capacity: Type.Optional(CapacityRecordSchema),
    otlp: Type.Optional(
      Type.Object(
        {
          endpoint: Type.String({ description: 'the OTLP/HTTP metrics URL pushed to' }),
          protocol: Type.Union([Type.Literal('http/protobuf'), Type.Literal('http/json')]),
          temporality: Type.Union([Type.Literal('cumulative'), Type.Literal('delta')]),
          intervalMs: Ms,
          exported: Type.Integer({
            minimum: 0,
            description: 'exports the collector accepted (the final one included)',
          }),
          failed: Type.Integer({
            minimum: 0,
            description: 'exports that failed: refused, unreachable or past their deadline',
          }),
          dropped: Type.Integer({
            minimum: 0,
            description: 'pushes skipped because the previous export was still in flight',
          }),
        },
        {
          additionalProperties: false,
          description: 'How the OTLP metrics push went (--otlp-endpoint); absent without one',
        },
      ),
    ),
    exemplars: Type.Optional(
      Type.Record(Type.String(), Type.Array(ExemplarSchema), {
        description:
          'Per method: the requests that explain its figures, with their W3C trace ids — the N slowest, a sample of each outcome other than success, one per latency bucket (docs/tracing.md)',
      }),
    ),
    replay: Type.Optional(ReplaySourceSchema),
    staleConnectionRetries: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          'Requests sent once more on a new connection: the keep-alive connection they were written to had been ' +
          'closed by the server, and no byte of the reply had come (each at most once). Absent when the load opened ' +
          'no connection (verify) and in files written before it was counted',
      }),
    ),
  },
  {
    additionalProperties: false,
    $id: 'https://rpcload.dev/schemas/result.schema.json',
    title: 'rpcload result file (rpcload/result@1)',
  },
);

export type Percentiles = Static<typeof PercentilesSchema>;
export type OutcomeCounts = Static<typeof OutcomeCountsSchema>;
export type Stats = Static<typeof StatsSchema>;
export type PhaseStats = Static<typeof PhaseStatsSchema>;
export type Summary = Static<typeof SummarySchema>;
export type Goodput = Static<typeof GoodputSchema>;
export type TimelineRow = Static<typeof TimelineRowSchema>;
export type Histograms = Static<typeof HistogramsSchema>;
export type RateLimitPeriod = Static<typeof RateLimitPeriodSchema>;
export type RateLimitClient = Static<typeof RateLimitClientSchema>;
export type RateLimitObservation = Static<typeof RateLimitObservationSchema>;
export type RateLimitReport = Static<typeof RateLimitSchema>;
export type CheckVerdict = Static<typeof CheckVerdictSchema>;
export type SkipClass = Static<typeof SkipClassSchema>;
export type CheckResult = Static<typeof CheckResultSchema>;
export type ThresholdResult = Static<typeof ThresholdResultSchema>;
export type RunStatus = Static<typeof RunStatusSchema>;
export type RunInfo = Static<typeof RunInfoSchema>;
export type ShardInfo = Static<typeof ShardInfoSchema>;
export type ShardSet = Static<typeof ShardSetSchema>;
export type RunResult = Static<typeof RunResultSchema>;
export type Exemplar = Static<typeof ExemplarSchema>;
export type WorkloadStats = Static<typeof WorkloadStatsSchema>;
export type WorkloadPhase = Static<typeof WorkloadPhaseSchema>;
export type SetupRecord = Static<typeof SetupRecordSchema>;
export type RunStop = Static<typeof RunStopSchema>;
