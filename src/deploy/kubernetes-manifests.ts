/**
 * The Kubernetes objects that run one rpcload load as N shards: the profile as a ConfigMap, an
 * Indexed Job whose pods each carry one shard (Kubernetes gives every pod its 0-based
 * JOB_COMPLETION_INDEX; the shard count, run id and start instant are the same env for all), a
 * results volume they write to, and a merge Job that waits for the complete shard set, judges the
 * thresholds on the union and fails when they fail — so `kubectl wait` on it is the verdict.
 * Pure: plain objects, printed as YAML by the CLI and validated against the Kubernetes API schema
 * in the tests. Client secrets are never part of the output: the pods read them from a Secret the
 * user creates (see docs/distributed.md).
 */
import { RpcloadError } from '../errors.ts';
import { isSecretKey } from '../util/redact.ts';
import { SHARD_ENV } from '../session/distributed/shard-spec.ts';

export interface KubernetesOptions {
  /** Object name prefix (a DNS label): `<name>-profile`, `<name>-shards`, `<name>-merge`, … */
  readonly name: string;
  readonly namespace?: string;
  readonly image: string;
  readonly shards: number;
  /** The profile file's text, stored in the ConfigMap as profile.json. */
  readonly profileText: string;
  /** Where the profile expects its secrets file (clients.secretsFile), if it has one. */
  readonly secretsFileName: string | null;
  readonly runId: string;
  /** The instant every shard starts its clock (ISO 8601). */
  readonly startAt: string;
  /** The load's total duration (ms): sets the Jobs' deadlines. */
  readonly loadDurationMs: number;
  /** CPU each shard pod requests (e.g. "1"): one rpcload thread busies about one core. */
  readonly cpu: string;
  readonly memory: string;
  /** Size of the results volume claim (ReadWriteMany). */
  readonly storage: string;
  /** Storage class of the claim; the cluster default when absent. */
  readonly storageClass?: string;
  /** Each shard serves live metrics on this port (`--metrics-listen 0.0.0.0:PORT`), with the prometheus.io scrape annotations. */
  readonly metricsPort?: number;
}

/** A Kubernetes object as plain data. */
export type KubernetesObject = Record<string, unknown> & { readonly apiVersion: string; readonly kind: string };

const PROFILE_DIR = '/etc/rpcload/profile';
const RESULTS_DIR = '/results';
/** How long a shard keeps serving its final metrics after its result file, so Prometheus scrapes them. */
const METRICS_LINGER = '30s';
/** Time pods get to be scheduled, pull the image and start, on top of the load itself. */
const START_ALLOWANCE_S = 15 * 60;

/** What every shard and the merge pod run as: not root, nothing writable but the results. */
const securityContext = {
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  runAsNonRoot: true,
  capabilities: { drop: ['ALL'] },
};

export function kubernetesManifests(o: KubernetesOptions): KubernetesObject[] {
  const labels = { 'app.kubernetes.io/name': 'rpcload', 'app.kubernetes.io/instance': o.name, 'rpcload.dev/run-id': o.runId };
  const metadata = (suffix: string): Record<string, unknown> => ({
    name: `${o.name}-${suffix}`,
    namespace: o.namespace,
    labels,
  });
  const deadlineS = Math.ceil(o.loadDurationMs / 1000) + START_ALLOWANCE_S;
  // The profile and its secrets file side by side in one directory, as the profile's relative
  // secretsFile path expects; the Secret is optional, so a profile without secrets runs too.
  const profileVolume = {
    name: 'profile',
    projected: {
      sources: [
        { configMap: { name: `${o.name}-profile` } },
        ...(o.secretsFileName === null
          ? []
          : [{ secret: { name: `${o.name}-secrets`, optional: true, items: [{ key: 'secrets.json', path: o.secretsFileName }] } }]),
      ],
    },
  };
  // The root filesystem is read-only: results go to the claim, scratch files to an emptyDir.
  const volumes = [
    profileVolume,
    { name: 'results', persistentVolumeClaim: { claimName: `${o.name}-results` } },
    { name: 'tmp', emptyDir: {} },
  ];
  const volumeMounts = [
    { name: 'profile', mountPath: PROFILE_DIR, readOnly: true },
    { name: 'results', mountPath: RESULTS_DIR },
    { name: 'tmp', mountPath: '/tmp' },
  ];
  // Secrets given as ${ENV} in the profile come from the same Secret's keys, when it exists.
  const envFrom = [{ secretRef: { name: `${o.name}-secrets`, optional: true } }];
  const podSecurity = { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000, seccompProfile: { type: 'RuntimeDefault' } };
  const container = (name: string, args: string[], env: { name: string; value: string }[]): Record<string, unknown> => ({
    name,
    image: o.image,
    args,
    workingDir: '/',
    env: [{ name: 'CI', value: 'true' }, ...env],
    envFrom,
    volumeMounts,
    resources: { requests: { cpu: o.cpu, memory: o.memory }, limits: { memory: o.memory } },
    securityContext,
  });
  const profilePath = `${PROFILE_DIR}/profile.json`;

  const shards = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: metadata('shards'),
    spec: {
      completionMode: 'Indexed',
      completions: o.shards,
      parallelism: o.shards,
      // A shard run twice would count its clients twice and start late: never retry one.
      backoffLimit: 0,
      activeDeadlineSeconds: deadlineS,
      ttlSecondsAfterFinished: 86_400,
      template: {
        metadata: {
          labels: { ...labels, 'rpcload.dev/role': 'shard' },
          ...(o.metricsPort === undefined
            ? {}
            : {
                annotations: {
                  'prometheus.io/scrape': 'true',
                  'prometheus.io/port': String(o.metricsPort),
                  'prometheus.io/path': '/metrics',
                },
              }),
        },
        spec: {
          restartPolicy: 'Never',
          // SIGTERM makes rpcload stop and write its result file; give it the time to do so.
          terminationGracePeriodSeconds: 30,
          securityContext: podSecurity,
          topologySpreadConstraints: [
            {
              maxSkew: 1,
              topologyKey: 'kubernetes.io/hostname',
              whenUnsatisfiable: 'ScheduleAnyway',
              labelSelector: { matchLabels: { ...labels, 'rpcload.dev/role': 'shard' } },
            },
          ],
          containers: [
            {
              ...container(
                'rpcload',
                // No --out: a shard's default file name carries the run id and its index, under
                // results/ of the working directory, which is the results volume's parent.
                [
                  'run',
                  profilePath,
                  '--ui',
                  'plain',
                  ...(o.metricsPort === undefined
                    ? []
                    : ['--metrics-listen', `0.0.0.0:${o.metricsPort}`, '--metrics-linger', METRICS_LINGER]),
                ],
                [
                  { name: SHARD_ENV.count, value: String(o.shards) },
                  { name: SHARD_ENV.runId, value: o.runId },
                  { name: SHARD_ENV.startAt, value: o.startAt },
                ],
              ),
              ...(o.metricsPort === undefined ? {} : { ports: [{ name: 'metrics', containerPort: o.metricsPort }] }),
            },
          ],
          volumes,
        },
      },
    },
  };

  const merge = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: metadata('merge'),
    spec: {
      backoffLimit: 0,
      activeDeadlineSeconds: deadlineS + 300,
      ttlSecondsAfterFinished: 86_400,
      template: {
        metadata: { labels: { ...labels, 'rpcload.dev/role': 'merge' } },
        spec: {
          restartPolicy: 'Never',
          securityContext: podSecurity,
          containers: [
            container(
              'merge',
              [
                'merge',
                RESULTS_DIR,
                '--run-id',
                o.runId,
                '--wait',
                `${deadlineS}s`,
                '--profile',
                profilePath,
                '--out',
                `${RESULTS_DIR}/${o.runId}.merged.json`,
              ],
              [],
            ),
          ],
          volumes,
        },
      },
    },
  };

  return [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: metadata('profile'), data: { 'profile.json': o.profileText } },
    {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: metadata('results'),
      spec: {
        accessModes: ['ReadWriteMany'],
        resources: { requests: { storage: o.storage } },
        storageClassName: o.storageClass,
      },
    },
    shards,
    merge,
  ];
}

/** What the manifests need from a profile, read without its secrets (they stay in the cluster). */
export interface ProfileFacts {
  readonly name: string;
  readonly loadDurationMs: number;
  readonly clientCount: number;
  readonly secretsFileName: string | null;
  /**
   * JSON pointers of secrets written into the profile itself (not `${VAR}`): the ConfigMap holds
   * the profile as it is, so they would be stored in the cluster in the clear.
   */
  readonly inlineSecrets: readonly string[];
}

/** A secret's value that comes from the environment alone: `${NAME}` (or `${NAME:-}`, an empty default). */
const FROM_ENVIRONMENT = /^\$\{[A-Za-z_][A-Za-z0-9_]*(?::-)?\}$/;

/**
 * Where a profile holds a secret as text rather than `${VAR}`: client secrets (a pattern's, a
 * list's), token form fields under a secret-ish name (`client_assertion`, `password`), and
 * credentials in the target URL.
 */
function inlineSecretPaths(profile: Record<string, unknown>): string[] {
  const paths: string[] = [];
  const check = (value: unknown, pointer: string): void => {
    if (typeof value === 'string' && value !== '' && !FROM_ENVIRONMENT.test(value)) paths.push(pointer);
  };
  const clients = (profile.clients ?? {}) as { secret?: unknown; list?: unknown };
  check(clients.secret, '/clients/secret');
  if (Array.isArray(clients.list))
    clients.list.forEach((client: unknown, i) => check((client as { secret?: unknown } | null)?.secret, `/clients/list/${i}/secret`));
  const extraFields = ((profile.auth ?? {}) as { extraFields?: unknown }).extraFields;
  if (typeof extraFields === 'object' && extraFields !== null)
    for (const [key, value] of Object.entries(extraFields))
      if (isSecretKey(key)) check(value, `/auth/extraFields/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  const target = profile.target;
  if (typeof target === 'string' && /^[^:/?#]+:\/\/[^/?#]*@/.test(target)) paths.push('/target');
  return paths;
}

/** Read ProfileFacts from a parsed profile; a missing or malformed part is one line naming the file and JSON path. */
export function profileFacts(path: string, value: unknown, parseDuration: (text: string) => number | undefined): ProfileFacts {
  const fail = (at: string, expected: string): never => {
    throw new RpcloadError('bad_profile', `${path}: ${at}: expected ${expected}`);
  };
  const profile = (
    typeof value === 'object' && value !== null && !Array.isArray(value) ? value : fail('/', 'a profile (a JSON object)')
  ) as Record<string, unknown>;
  const name = typeof profile.name === 'string' && profile.name !== '' ? profile.name : fail('/name', 'the profile name');
  const phases =
    Array.isArray(profile.phases) && profile.phases.length > 0 ? (profile.phases as unknown[]) : fail('/phases', 'at least one phase');
  const loadDurationMs = phases.reduce<number>((sum, phase, i) => {
    const text = (phase as { duration?: unknown } | null)?.duration;
    const ms = typeof text === 'string' || typeof text === 'number' ? parseDuration(String(text)) : undefined;
    return sum + (ms ?? fail(`/phases/${i}/duration`, 'a duration like 30s'));
  }, 0);
  const clients = (profile.clients ?? {}) as { count?: unknown; list?: unknown; secretsFile?: unknown };
  const clientCount = Array.isArray(clients.list) ? clients.list.length : typeof clients.count === 'number' ? clients.count : 1;
  const secretsFileName = typeof clients.secretsFile === 'string' ? clients.secretsFile : null;
  if (secretsFileName !== null && (secretsFileName.includes('/') || secretsFileName.startsWith('.'))) {
    fail('/clients/secretsFile', 'a file name beside the profile (in the cluster both are mounted in one directory)');
  }
  return { name, loadDurationMs, clientCount, secretsFileName, inlineSecrets: inlineSecretPaths(profile) };
}
