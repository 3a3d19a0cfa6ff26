/**
 * The profile format: user input, everything optional except what must be given (scenarios and
 * phases), each field documented with its default. The TypeBox schema is the single source: the
 * `Profile` type is derived from it, `schemas/profile.schema.json` is generated from it, and
 * `Value.Errors` validates against it. Semantic rules (durations parse, exactly one of rate or
 * concurrency, unique names, template and threshold syntax …) live in the plan builder.
 */
import { Type, type Static } from '@sinclair/typebox';
import { PROFILE_DEFAULTS as D } from './profile-defaults.ts';
import { CapacitySchema } from './capacity-settings.ts';
import { ReplaySchema } from './replay-settings.ts';
import {
  AuthSchema,
  DurationSchema,
  HttpSchema,
  Literals,
  OptionalFields,
  RateLimitSchema,
  ServerSchema,
} from './schema-settings.ts';
import { TRACE_URL_PATTERN } from './trace-url.ts';

const SECRET_HINT =
  'Write it as "${ENV_VAR}" so it comes from the environment (an empty value counts as none). Default: none; without a target, clients without a secret get a random per-run secret.';

const Weight = (description: string) =>
  Type.Number({
    exclusiveMinimum: 0,
    default: D.clients.weight,
    description: `${description} Greater than 0. Default ${D.clients.weight}.`,
  });

const CertPattern = Type.String({
  minLength: 1,
  description:
    'Per-client certificate file (mTLS), relative to the profile; {id} is the client id, e.g. "certs/{id}.pem". The file may hold the key too. Default: none (http.cert, if any, for every client).',
});
const KeyPattern = Type.String({
  minLength: 1,
  description:
    'Private key file of each client\'s certificate, e.g. "certs/{id}.key". Default: the key in the certificate file.',
});
const PrivateKeyPattern = Type.String({
  minLength: 1,
  description:
    'private_key_jwt: each client\'s signing key file (PEM or JWK), relative to the profile; {id} is the client id, e.g. "keys/{id}.pem". Default: none.',
});
const SigningSecret = (who: string) =>
  Type.String({
    description: `${who} signing secret, handed to the sign module with each request. Write it as "\${ENV_VAR}". Default: the client secret.`,
  });

/** Credential files found by client id, in either form of `clients`. */
const CredentialPatterns = { certPattern: CertPattern, keyPattern: KeyPattern, privateKeyPattern: PrivateKeyPattern };

const SecretsFile = Type.String({
  minLength: 1,
  description:
    'JSON file (path relative to the profile) holding an object of client id → secret. A client\'s own "secret" takes precedence. Default: none.',
});

export const ClientPatternSchema = OptionalFields(
  {
    pattern: Type.String({
      default: D.clients.pattern,
      description: `Client id pattern; {n} is replaced by start, start+1, …. Default "${D.clients.pattern}".`,
    }),
    count: Type.Integer({
      minimum: 1,
      default: D.clients.count,
      description: `Number of clients. Default ${D.clients.count}.`,
    }),
    start: Type.Integer({
      minimum: 0,
      default: D.clients.start,
      description: `First value of {n}. Default ${D.clients.start}.`,
    }),
    secret: Type.String({ description: `Secret shared by all clients of the pattern. ${SECRET_HINT}` }),
    weights: Type.Record(Type.String(), Weight('Share of arrivals of this client, relative to the others.'), {
      description: 'Weights of particular clients by id (e.g. one greedy client). Default: every client weighs 1.',
    }),
    secretsFile: SecretsFile,
    signingSecret: SigningSecret("The clients'"),
    ...CredentialPatterns,
  },
  'Clients generated from an id pattern.',
);

export const ClientEntrySchema = Type.Object(
  {
    id: Type.String({ minLength: 1, description: 'Client id.' }),
    secret: Type.Optional(Type.String({ description: `Client secret. ${SECRET_HINT}` })),
    weight: Type.Optional(Weight('Share of arrivals of this client, relative to the others.')),
    cert: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "This client's certificate (mTLS), a PEM file relative to the profile; it may hold the key too. Default: certPattern, else http.cert.",
      }),
    ),
    key: Type.Optional(
      Type.String({
        minLength: 1,
        description: "Private key file of this client's certificate. Default: the key in the cert file.",
      }),
    ),
    privateKey: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "private_key_jwt: this client's signing key, a PEM or JWK file relative to the profile. Default: privateKeyPattern.",
      }),
    ),
    signingSecret: Type.Optional(SigningSecret("This client's")),
  },
  { additionalProperties: false },
);

export const ClientListSchema = Type.Object(
  {
    list: Type.Array(ClientEntrySchema, { minItems: 1, description: 'The clients, in order.' }),
    secretsFile: Type.Optional(SecretsFile),
    certPattern: Type.Optional(CertPattern),
    keyPattern: Type.Optional(KeyPattern),
    privateKeyPattern: Type.Optional(PrivateKeyPattern),
  },
  { additionalProperties: false, description: 'An explicit list of clients.' },
);

export const ClientsSchema = Type.Union([ClientPatternSchema, ClientListSchema], {
  description: `The client identities load is spread over. Default: pattern "${D.clients.pattern}", count ${D.clients.count}.`,
});

export const ThinkSchema = Type.Union(
  [
    DurationSchema('A fixed pause.'),
    Type.Object(
      {
        uniform: Type.Tuple([DurationSchema('Shortest pause.'), DurationSchema('Longest pause.')], {
          description: 'The shortest and longest pause, e.g. ["100ms", "500ms"].',
        }),
      },
      { additionalProperties: false, description: 'A pause drawn uniformly between two durations.' },
    ),
    Type.Object(
      { exponential: DurationSchema('Mean pause.') },
      { additionalProperties: false, description: 'A pause drawn from an exponential distribution with this mean.' },
    ),
  ],
  {
    default: D.step.think,
    description: `Pause after this step, before the next one: a duration, { "uniform": [MIN, MAX] } or { "exponential": MEAN } (drawn from the run's seed). Default "${D.step.think}".`,
  },
);

export const DataSetSchema = Type.Object(
  {
    file: Type.String({
      minLength: 1,
      description:
        'CSV file with a header row (RFC 4180), or JSON Lines (.jsonl, .ndjson: one object a line); relative to the profile.',
    }),
    order: Type.Optional(
      Literals(
        ['sequential', 'random', 'unique'],
        'Row order: sequential (file order), random (uniform, with repeats), unique (each row at most once across the whole run, workers and shards included).',
        D.data.order,
      ),
    ),
    onEnd: Type.Optional(
      Type.Union([Type.Literal('wrap'), Type.Literal('stop')], {
        description:
          'When the rows run out: wrap (start over) or stop (the run ends cleanly and says so). Default "wrap"; "stop" for order unique (which never repeats a row).',
      }),
    ),
  },
  { additionalProperties: false },
);

/** A tag key: a name (never one of the selector keys a threshold already has: workload, scenario, phase, method, client). */
const TAG_KEY_PATTERN = '^(?!(workload|scenario|phase|method|client)$)[A-Za-z_][A-Za-z0-9_.-]*$';

export const StepSchema = Type.Object(
  {
    method: Type.String({
      minLength: 1,
      description:
        'API method name, sent as POST {target}/api/{method}: letters, digits, ".", "_", "~" and "-", not starting with "." (at most 128).',
    }),
    args: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          "Request body (a JSON object). Strings may hold templates: {{client.id}}, {{client.index}}, {{iteration}}, {{pick a|b|c}}, {{int 1 100}}, {{uuid}}, {{pad 1000}}, {{vars.NAME}} (a value an earlier step saved), {{data.SET.COLUMN}} (the iteration's row of a data set). A string that is exactly one template gives the raw value. Default {}.",
      }),
    ),
    paginate: Type.Optional(
      Type.Union(
        [
          Type.Boolean(),
          OptionalFields(
            {
              maxPages: Type.Integer({
                minimum: 1,
                default: D.step.maxPages,
                description: `Page cap of the walk. Default ${D.step.maxPages}.`,
              }),
            },
            'Walk the pages.',
          ),
        ],
        {
          description: `Walk "next" cursors with identical args: true (up to ${D.step.maxPages} pages) or { "maxPages": N }. Default: one request.`,
        },
      ),
    ),
    think: Type.Optional(ThinkSchema),
    save: Type.Optional(
      Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), Type.String({ minLength: 1 }), {
        description:
          'Values to keep for later steps of the same iteration: NAME → path into the reply\'s `data` (dots and [n], e.g. "items[0].sku"), read as {{vars.NAME}}. A path the reply lacks ends the iteration with outcome flow:missing_value. Default: none.',
      }),
    ),
    expect: Type.Optional(
      Type.Object(
        {
          status: Type.Optional(
            Type.Union([Type.Literal('success'), Type.Literal('error')], {
              description: 'The envelope status. Default: "error" with an expected error code, else "success".',
            }),
          ),
          error: Type.Optional(
            Type.String({
              minLength: 1,
              description: 'The error envelope\'s code, e.g. "not_found". Default: any code (not checked).',
            }),
          ),
          data: Type.Optional(
            Type.Record(Type.String(), Type.Unknown(), {
              description: "A subset the reply's `data` must contain (objects by key, arrays by position).",
            }),
          ),
        },
        {
          additionalProperties: false,
          minProperties: 1,
          description:
            'What the reply must be; a reply that is not is counted as outcome expect:<what> (e.g. expect:data.state). Default: any success.',
        },
      ),
    ),
    onFail: Type.Optional(
      Literals(
        ['stop', 'continue'],
        'After a failed expectation: end the iteration, or go on to the next step.',
        D.step.onFail,
      ),
    ),
    tags: Type.Optional(
      Type.Record(Type.String({ pattern: TAG_KEY_PATTERN }), Type.String({ minLength: 1, maxLength: 128 }), {
        description:
          'Labels of this step\'s requests, e.g. {"kind": "write"}: thresholds select by them (p95{kind:write} < 500ms) and the result groups by them (byTag). Keys are names other than workload, scenario, phase, method and client. Default: none.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ScenarioSchema = Type.Object(
  {
    name: Type.Optional(
      Type.String({ minLength: 1, description: 'Unique scenario name. Default "scenario-N" (N from 1).' }),
    ),
    weight: Type.Optional(Weight('Share of iterations that run this scenario.')),
    steps: Type.Array(StepSchema, {
      minItems: 1,
      description: 'Requests made in order by one iteration, all by the same client.',
    }),
  },
  { additionalProperties: false },
);

const Rate = (description: string) => Type.Number({ minimum: 0, description });
const LOAD_RULE = 'No default: exactly one of rate and concurrency.';
export const PhaseSchema = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, description: 'Unique phase name. Default "phase-N" (N from 1).' })),
    duration: DurationSchema('How long the phase lasts.'),
    rate: Type.Optional(
      Type.Union(
        [
          Rate('Constant rate.'),
          Type.Object(
            { from: Rate('Rate at the start of the phase.'), to: Rate('Rate at the end of the phase.') },
            { additionalProperties: false, description: 'Linear ramp from → to over the phase.' },
          ),
        ],
        {
          description: `Open model: scenario iterations started per second (with single-step scenarios, requests per second), constant or a linear ramp { "from", "to" }. ${LOAD_RULE}`,
        },
      ),
    ),
    concurrency: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: `Closed model: this many virtual users, each looping the scenario mix. ${LOAD_RULE}`,
      }),
    ),
    arrivals: Type.Optional(
      Literals(
        ['uniform', 'poisson'],
        "Open model: arrivals evenly spaced along the rate, or a Poisson process at it (exponential gaps from the run's seed).",
        D.phase.arrivals,
      ),
    ),
  },
  { additionalProperties: false },
);

const WORKLOAD_LOAD_RULE = 'Exactly one of phases, iterations and replay.';
export const WorkloadSchema = Type.Object(
  {
    name: Type.String({
      pattern: '^[A-Za-z0-9_][A-Za-z0-9_.-]*$',
      description: 'Unique workload name (letters, digits, _ . -).',
    }),
    clients: Type.Optional(
      Type.Union(
        [
          ClientPatternSchema,
          ClientListSchema,
          Type.Array(Type.String({ minLength: 1 }), {
            minItems: 1,
            description: "IDs of the top-level clients (or of another workload's) this workload sends by.",
          }),
        ],
        {
          description:
            'The client IDs its load is spread over: a clients block like the top-level one (its secret inherited from the top-level block when omitted), or a list of client IDs. A client in two workloads is one identity: one token, one quota. Default: the top-level clients.',
        },
      ),
    ),
    scenarios: Type.Optional(
      Type.Union(
        [
          Type.Array(Type.String({ minLength: 1 }), {
            minItems: 1,
            description: 'Scenario names, each with its own weight.',
          }),
          Type.Record(Type.String({ minLength: 1 }), Weight("Share of this workload's iterations."), {
            minProperties: 1,
            description: 'Scenario name → weight within this workload, e.g. {"ping": 3, "echo": 1}.',
          }),
        ],
        {
          description:
            'The scenarios its iterations pick from (by weight). Default: every scenario, with its own weight.',
        },
      ),
    ),
    phases: Type.Optional(
      Type.Array(PhaseSchema, {
        minItems: 1,
        description: `Load phases of this workload, run in order. ${WORKLOAD_LOAD_RULE} No default.`,
      }),
    ),
    arrivals: Type.Optional(
      Literals(
        ['uniform', 'poisson'],
        'Open model: the arrival process of its phases that do not name their own.',
        D.phase.arrivals,
      ),
    ),
    iterations: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: `Each of its clients runs this many iterations, one after another, then stops (closed model). ${WORKLOAD_LOAD_RULE} No default.`,
      }),
    ),
    maxDuration: Type.Optional(
      DurationSchema('With iterations: the most the workload may last.', D.workload.maxDuration),
    ),
    replay: Type.Optional(ReplaySchema),
    startAfter: Type.Optional(DurationSchema("Delay of its start on the run's clock.", D.workload.startAfter)),
  },
  { additionalProperties: false },
);

export const SetupSchema = Type.Object(
  {
    client: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "The client ID that runs the steps: any configured one, or a new ID with the top-level clients' secret. Default: the first client.",
      }),
    ),
    steps: Type.Array(StepSchema, {
      minItems: 1,
      description: 'Requests made in order, once; `save` keeps values for {{setup.NAME}}.',
    }),
    timeout: Type.Optional(DurationSchema('How long all the steps may take together.', D.setup.timeout)),
  },
  { additionalProperties: false },
);

export const ThresholdSchema = Type.Union(
  [
    Type.String({
      description:
        'e.g. "p99 < 250ms", "p99{workload:browse} < 2s", "error_rate{method:orders.create} < 1%", "items.list:p99 < 300ms", "rps >= 50"',
    }),
    Type.Object(
      {
        threshold: Type.String({ minLength: 1, description: 'The expression, as a plain threshold string.' }),
        abortOnFail: Type.Optional(
          Type.Boolean({
            default: false,
            description:
              'Judge it once a second while the run goes, and stop the run (status "aborted", exit 1) the moment it fails. Default false.',
          }),
        ),
        delayAbortEval: Type.Optional(
          DurationSchema('With abortOnFail: judge it live only after this long into the run.', '0s'),
        ),
      },
      { additionalProperties: false },
    ),
  ],
  { description: 'A pass/fail expression, or one that stops the run when it fails.' },
);

export const ProfileSchema = Type.Object(
  {
    $schema: Type.Optional(
      Type.String({
        description:
          'JSON Schema for editors, e.g. "../schemas/profile.schema.json" (ignored by rpcload). Default: none.',
      }),
    ),
    name: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'Profile name, used in result file names. Default: the file name without .json.',
      }),
    ),
    description: Type.Optional(Type.String({ description: 'Free text. Default: none.' })),
    target: Type.Optional(
      Type.String({
        description:
          'Base URL (http:// or https://) of the API under test. Default (absent or empty): start the embedded reference server.',
      }),
    ),
    replicas: Type.Optional(
      Type.Array(
        Type.String({
          description:
            'Base URL (http:// or https://) of one replica, reached directly (a pod IP, a per-instance port).',
        }),
        {
          description:
            'Replicas of the API behind the target: `run` spreads the load over them (tokens still come from the target), `verify` checks that a spent quota is spent on every one (ratelimit.replicas). Default: none.',
        },
      ),
    ),
    server: Type.Optional(ServerSchema),
    auth: Type.Optional(AuthSchema),
    clients: Type.Optional(ClientsSchema),
    scenarios: Type.Optional(
      Type.Array(ScenarioSchema, {
        minItems: 1,
        description:
          'Weighted scenarios; each iteration picks one. Required (default: none) unless every workload replays a recording.',
      }),
    ),
    phases: Type.Optional(
      Type.Array(PhaseSchema, {
        minItems: 1,
        description:
          'Load phases, run in order: the load of the one workload ("default") of a profile without "workloads". Required (default: none) unless the profile has a replay section or workloads.',
      }),
    ),
    replay: Type.Optional(ReplaySchema),
    workloads: Type.Optional(
      Type.Array(WorkloadSchema, {
        minItems: 1,
        description:
          'Units of load run side by side on one clock, each with its own clients, scenarios and load (phases, iterations or a replay). Default: one workload "default" made of the top-level phases or replay.',
      }),
    ),
    setup: Type.Optional(
      Type.Object(SetupSchema.properties, {
        additionalProperties: false,
        description:
          'Steps run once, by one client, after the tokens and before the load; their saved values are {{setup.NAME}} in every template. A failed step stops the run before any load (exit 1). Default: none.',
      }),
    ),
    teardown: Type.Optional(
      Type.Object(SetupSchema.properties, {
        additionalProperties: false,
        description:
          'Steps run once after the load — also after an abort or a Ctrl-C (a second Ctrl-C skips them) — with {{setup.NAME}} available. Default: none.',
      }),
    ),
    data: Type.Optional(
      Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), DataSetSchema, {
        description:
          'Data files feeding step args: SET → { file, order, onEnd }, read as {{data.SET.COLUMN}}; each iteration takes one row of every set its scenario reads, the same row for all its steps. Default: none.',
      }),
    ),
    rateLimit: Type.Optional(RateLimitSchema),
    thresholds: Type.Optional(
      Type.Array(ThresholdSchema, {
        description:
          'Pass/fail expressions "metric{key:value,…} op value[unit]" over the result (keys: workload, scenario, phase, method, client or a step tag; "method:metric" is short for metric{method:…}); a failing one makes the run exit 1. Default: none.',
      }),
    ),
    http: Type.Optional(HttpSchema),
    sign: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'Request signing: a JavaScript module (path relative to the profile, e.g. "./sign.mjs") whose default export receives each API request { method, path, headers, body, clientId, signingSecret } and returns headers to add. It runs on every request; an error it throws is the outcome sign:error. Default: none.',
      }),
    ),
    capacity: Type.Optional(CapacitySchema),
    report: Type.Optional(
      Type.Object(
        {
          traceUrl: Type.Optional(
            Type.String({
              pattern: TRACE_URL_PATTERN,
              description:
                'Link template of exemplar trace ids in `rpcload report` (its --trace-url flag wins), e.g. "https://tempo.example/trace/{traceId}"; {spanId} is replaced too. Default: no links.',
            }),
          ),
        },
        { additionalProperties: false, description: "How `rpcload report` renders this profile's result files." },
      ),
    ),
    seed: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 0xffff_ffff,
        description:
          'Seed of the random choices (scenario mix, template picks). Default: random, recorded in the result.',
      }),
    ),
    checkpointEvery: Type.Optional(
      DurationSchema('Write the result file this often during the run.', D.checkpointEvery),
    ),
  },
  {
    additionalProperties: false,
    $id: 'https://rpcload.dev/schemas/profile.schema.json',
    title: 'rpcload profile',
    description: 'A load profile for `rpcload run`.',
  },
);

export type Profile = Static<typeof ProfileSchema>;

/**
 * The profile JSON Schema as published in schemas/profile.schema.json and printed by
 * `rpcload profile schema`: the TypeBox schema serialized (its symbol keys drop out) under the
 * draft-07 dialect, whose keywords TypeBox emits.
 */
export function profileJsonSchemaText(): string {
  return `${JSON.stringify({ $schema: 'http://json-schema.org/draft-07/schema#', ...ProfileSchema }, null, 2)}\n`;
}
export type ClientsSettings = Static<typeof ClientsSchema>;
export type ClientPatternSettings = Static<typeof ClientPatternSchema>;
export type ScenarioSettings = Static<typeof ScenarioSchema>;
export type StepSettings = Static<typeof StepSchema>;
export type ThinkSettings = Static<typeof ThinkSchema>;
export type DataSetSettings = Static<typeof DataSetSchema>;
export type PhaseSettings = Static<typeof PhaseSchema>;
export type WorkloadSettings = Static<typeof WorkloadSchema>;
export type SetupSettings = Static<typeof SetupSchema>;
export type ThresholdSettings = Static<typeof ThresholdSchema>;
