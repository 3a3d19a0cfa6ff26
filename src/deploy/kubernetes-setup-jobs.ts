/**
 * Setup and teardown of a sharded run on Kubernetes, each run once: a setup Job runs
 * `rpcload setup` and leaves the values it saved on the results volume; every shard (and the
 * merge) first waits in an init container until that file is there, then runs with
 * `--setup-values`; a teardown Job waits until the merge has written the merged result (or until
 * the shards' deadline has passed, when Kubernetes has stopped every one of them) and runs
 * `rpcload teardown` with the same file. Kubernetes has no ordering between Jobs, so the order is
 * kept by the files on the shared volume, as the merge already waits for the shards' files.
 * The waits are POSIX shell loops in the rpcload image (node's Debian base has sh, date, sleep),
 * each with a deadline and a one-line reason when it passes. Pure data.
 */
import { RESULTS_DIR, securityContext } from './kubernetes-pod-kit.ts';
import type { KubernetesObject, KubernetesOptions, PodKit } from './kubernetes-pod-kit.ts';

type EnvVar = { name: string; value: string };

/**
 * Where `rpcload setup` writes the values on the results volume. Not a `.json`: `rpcload merge
 * /results` reads every `.json` there as a result file.
 */
export const setupValuesPath = (runId: string): string => `${RESULTS_DIR}/${runId}.setup-values`;

/** Where the merge Job writes the merged result (the teardown Job waits for it). */
export const mergedResultPath = (runId: string): string => `${RESULTS_DIR}/${runId}.merged.json`;

/** Extra teardown deadline on top of its waits: its own steps (30 s by default) and a pod start. */
const TEARDOWN_ALLOWANCE_S = 600;

/** A shell loop waiting for a non-empty file until a deadline; `onDeadline` runs when it passes. */
function waitLoop(fileVar: string, deadlineExpr: string, onDeadline: string, pollS: number): string {
  const check = `  if [ "$(date +%s)" -ge ${deadlineExpr} ]; then ${onDeadline}; fi`;
  return [`until [ -s "$${fileVar}" ]; do`, check, `  sleep ${pollS}`, 'done'].join('\n');
}

/** A small container of the rpcload image running a shell wait on the results volume (read only, no secrets). */
function waiter(o: KubernetesOptions, name: string, script: string, env: EnvVar[]): Record<string, unknown> {
  return {
    name,
    image: o.image,
    command: ['sh', '-c', script],
    env,
    volumeMounts: [{ name: 'results', mountPath: RESULTS_DIR, readOnly: true }],
    resources: { requests: { cpu: '10m', memory: '32Mi' }, limits: { memory: '32Mi' } },
    securityContext,
  };
}

/** `kubectl logs job/<name>-setup`, in the run's namespace. */
const setupLogs = (o: KubernetesOptions): string =>
  `kubectl logs${o.namespace === undefined ? '' : ` -n ${o.namespace}`} job/${o.name}-setup`;

/**
 * The init container that holds a pod until setup's values are on the volume — at the latest
 * until the start instant: a shard cannot start without them, and setup (one request or a few)
 * has had the whole `--start-in` to run. Then the pod fails with the reason.
 */
export function waitForSetup(o: KubernetesOptions): Record<string, unknown> {
  const reason =
    `rpcload: no setup values at $SETUP_VALUES by the start instant ${o.startAt}: ` +
    `setup failed or is still running; see ${setupLogs(o)}`;
  const script = waitLoop('SETUP_VALUES', '"$WAIT_UNTIL"', `echo "${reason}" >&2; exit 1`, 1);
  return waiter(o, 'wait-for-setup', script, [
    { name: 'SETUP_VALUES', value: setupValuesPath(o.runId) },
    { name: 'WAIT_UNTIL', value: String(Math.ceil(Date.parse(o.startAt) / 1000)) },
  ]);
}

/**
 * The init container that holds the teardown until the shards are over: the merged result is
 * written (the merge has read every shard's final file), or the shards' deadline has passed — then
 * Kubernetes has stopped them all, so teardown runs anyway and says why.
 */
function waitForShards(o: KubernetesOptions, kit: PodKit): Record<string, unknown> {
  const reason =
    'rpcload: no merged result at $MERGED_RESULT after $WAIT_S s: ' +
    'the shards are past their deadline, so none is still running; tearing down';
  const wait = waitLoop('MERGED_RESULT', '"$end"', `echo "${reason}" >&2; exit 0`, 2);
  const script = `end=$(( $(date +%s) + WAIT_S ))\n${wait}`;
  return waiter(o, 'wait-for-shards', script, [
    { name: 'MERGED_RESULT', value: mergedResultPath(o.runId) },
    { name: 'WAIT_S', value: String(kit.deadlineS) },
  ]);
}

/** A Job of one pod, never retried: setup creates things, and teardown deletes what setup made. */
function oncePod(
  kit: PodKit,
  role: 'setup' | 'teardown',
  deadlineS: number,
  initContainers: Record<string, unknown>[],
  container: Record<string, unknown>,
): KubernetesObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: kit.metadata(role),
    spec: {
      backoffLimit: 0,
      activeDeadlineSeconds: deadlineS,
      ttlSecondsAfterFinished: 86_400,
      template: {
        metadata: { labels: { ...kit.labels, 'rpcload.dev/role': role } },
        spec: {
          restartPolicy: 'Never',
          securityContext: kit.podSecurity,
          ...(initContainers.length === 0 ? {} : { initContainers }),
          containers: [container],
          volumes: kit.volumes,
        },
      },
    },
  };
}

/** `rpcload setup` once, its values written where the shards wait for them. */
export function setupJob(o: KubernetesOptions, kit: PodKit): KubernetesObject {
  return oncePod(
    kit,
    'setup',
    kit.deadlineS,
    [],
    kit.container('setup', ['setup', kit.profilePath, '--out', setupValuesPath(o.runId)], []),
  );
}

/** `rpcload teardown` once, after the shards, with setup's values. */
export function teardownJob(o: KubernetesOptions, kit: PodKit): KubernetesObject {
  // Both waits fit: setup's ends by the start instant (within the start allowance), the shards' after deadlineS.
  return oncePod(
    kit,
    'teardown',
    2 * kit.deadlineS + TEARDOWN_ALLOWANCE_S,
    [waitForSetup(o), waitForShards(o, kit)],
    kit.container('teardown', ['teardown', kit.profilePath, '--setup-values', setupValuesPath(o.runId)], []),
  );
}
