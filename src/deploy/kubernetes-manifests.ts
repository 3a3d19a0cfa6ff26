/**
 * The Kubernetes objects that run one rpcload load as N shards: the profile as a ConfigMap, an
 * Indexed Job whose pods each carry one shard (Kubernetes gives every pod its 0-based
 * JOB_COMPLETION_INDEX; the shard count, run id and start instant are the same env for all), a
 * results volume they write to, and a merge Job that waits for the complete shard set, judges the
 * thresholds on the union and fails when they fail — so `kubectl wait` on it is the verdict. A
 * profile with setup gets a setup Job before the shards and a teardown Job after them
 * (kubernetes-setup-jobs.ts).
 * Pure: plain objects, printed as YAML by the CLI and validated against the Kubernetes API schema
 * in the tests. Client secrets are never part of the output: the pods read them from a Secret the
 * user creates (see docs/distributed.md).
 */
import { RpcloadError } from '../errors.ts';
import { isSecretKey } from '../util/redact.ts';
import { SHARD_ENV } from '../session/distributed/shard-spec.ts';
import { podKit, RESULTS_DIR, type KubernetesObject, type KubernetesOptions } from './kubernetes-pod-kit.ts';
import { mergedResultPath, setupJob, setupValuesPath, teardownJob, waitForSetup } from './kubernetes-setup-jobs.ts';

export type { KubernetesObject, KubernetesOptions } from './kubernetes-pod-kit.ts';

/** How long a shard keeps serving its final metrics after its result file, so Prometheus scrapes them. */
const METRICS_LINGER = '30s';

export function kubernetesManifests(o: KubernetesOptions): KubernetesObject[] {
  const kit = podKit(o);
  const { labels, metadata, deadlineS, volumes, podSecurity, container, profilePath } = kit;
  const withSetup = o.steps?.setup === true;
  // With setup, the shards and the merge first wait for its values (a merge would otherwise wait
  // for shards that never start); the shards run with them.
  const setupWait = withSetup ? { initContainers: [waitForSetup(o)] } : {};

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
          ...setupWait,
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
                  ...(withSetup ? ['--setup-values', setupValuesPath(o.runId)] : []),
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
          ...setupWait,
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
                mergedResultPath(o.runId),
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
    ...(withSetup ? [setupJob(o, kit)] : []),
    shards,
    merge,
    ...(withSetup && o.steps?.teardown === true ? [teardownJob(o, kit)] : []),
  ];
}

/** What the manifests need from a profile, read without its secrets (they stay in the cluster). */
export interface ProfileFacts {
  readonly name: string;
  readonly loadDurationMs: number;
  readonly clientCount: number;
  readonly secretsFileName: string | null;
  /** Whether the profile has a setup and a teardown section. */
  readonly steps: { readonly setup: boolean; readonly teardown: boolean };
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
    clients.list.forEach((client: unknown, i) =>
      check((client as { secret?: unknown } | null)?.secret, `/clients/list/${i}/secret`),
    );
  const extraFields = ((profile.auth ?? {}) as { extraFields?: unknown }).extraFields;
  if (typeof extraFields === 'object' && extraFields !== null)
    for (const [key, value] of Object.entries(extraFields))
      if (isSecretKey(key)) check(value, `/auth/extraFields/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  const target = profile.target;
  if (typeof target === 'string' && /^[^:/?#]+:\/\/[^/?#]*@/.test(target)) paths.push('/target');
  return paths;
}

/** Read ProfileFacts from a parsed profile; a missing or malformed part is one line naming the file and JSON path. */
export function profileFacts(
  path: string,
  value: unknown,
  parseDuration: (text: string) => number | undefined,
): ProfileFacts {
  const fail = (at: string, expected: string): never => {
    throw new RpcloadError('bad_profile', `${path}: ${at}: expected ${expected}`);
  };
  const profile = (
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? value
      : fail('/', 'a profile (a JSON object)')
  ) as Record<string, unknown>;
  const name =
    typeof profile.name === 'string' && profile.name !== '' ? profile.name : fail('/name', 'the profile name');
  const phases =
    Array.isArray(profile.phases) && profile.phases.length > 0
      ? (profile.phases as unknown[])
      : fail('/phases', 'at least one phase');
  const loadDurationMs = phases.reduce<number>((sum, phase, i) => {
    const text = (phase as { duration?: unknown } | null)?.duration;
    const ms = typeof text === 'string' || typeof text === 'number' ? parseDuration(String(text)) : undefined;
    return sum + (ms ?? fail(`/phases/${i}/duration`, 'a duration like 30s'));
  }, 0);
  const clients = (profile.clients ?? {}) as { count?: unknown; list?: unknown; secretsFile?: unknown };
  const clientCount = Array.isArray(clients.list)
    ? clients.list.length
    : typeof clients.count === 'number'
      ? clients.count
      : 1;
  const secretsFileName = typeof clients.secretsFile === 'string' ? clients.secretsFile : null;
  if (secretsFileName !== null && (secretsFileName.includes('/') || secretsFileName.startsWith('.'))) {
    fail('/clients/secretsFile', 'a file name beside the profile (in the cluster both are mounted in one directory)');
  }
  const steps = { setup: profile.setup !== undefined, teardown: profile.teardown !== undefined };
  return { name, loadDurationMs, clientCount, secretsFileName, steps, inlineSecrets: inlineSecretPaths(profile) };
}
