/**
 * The parts every pod of a sharded run on Kubernetes shares — labels, names, the profile and
 * results volumes, the security settings, the rpcload container — so the shards, the merge and
 * the setup and teardown Jobs (kubernetes-setup-jobs.ts) are built alike. Pure data.
 */

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
  /**
   * The profile's setup and teardown sections: with setup, a setup Job runs it once before the
   * shards and a teardown Job (when there is teardown) once after them (kubernetes-setup-jobs.ts).
   */
  readonly steps?: { readonly setup: boolean; readonly teardown: boolean };
}

/** A Kubernetes object as plain data. */
export type KubernetesObject = Record<string, unknown> & { readonly apiVersion: string; readonly kind: string };

export const PROFILE_DIR = '/etc/rpcload/profile';
export const RESULTS_DIR = '/results';
/** Time pods get to be scheduled, pull the image and start, on top of the load itself. */
const START_ALLOWANCE_S = 15 * 60;

/** What every container runs as: not root, nothing writable but the results. */
export const securityContext = {
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  runAsNonRoot: true,
  capabilities: { drop: ['ALL'] },
};

/** What the pods of one run share. */
export interface PodKit {
  readonly labels: Readonly<Record<string, string>>;
  /** `metadata` of the object `<name>-<suffix>`. */
  readonly metadata: (suffix: string) => Record<string, unknown>;
  /** How long the shards may take, start allowance included (s): the Jobs' deadlines derive from it. */
  readonly deadlineS: number;
  readonly volumes: readonly Record<string, unknown>[];
  readonly podSecurity: Record<string, unknown>;
  /** The profile file as the pods see it. */
  readonly profilePath: string;
  /** An rpcload container (the image's entrypoint) with these arguments and extra environment. */
  readonly container: (name: string, args: string[], env: { name: string; value: string }[]) => Record<string, unknown>;
}

export function podKit(o: KubernetesOptions): PodKit {
  const labels = {
    'app.kubernetes.io/name': 'rpcload',
    'app.kubernetes.io/instance': o.name,
    'rpcload.dev/run-id': o.runId,
  };
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
          : [
              {
                secret: {
                  name: `${o.name}-secrets`,
                  optional: true,
                  items: [{ key: 'secrets.json', path: o.secretsFileName }],
                },
              },
            ]),
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
  const podSecurity = {
    runAsNonRoot: true,
    runAsUser: 1000,
    runAsGroup: 1000,
    fsGroup: 1000,
    seccompProfile: { type: 'RuntimeDefault' },
  };
  const container = (
    name: string,
    args: string[],
    env: { name: string; value: string }[],
  ): Record<string, unknown> => ({
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
  return { labels, metadata, deadlineS, volumes, podSecurity, profilePath: `${PROFILE_DIR}/profile.json`, container };
}
