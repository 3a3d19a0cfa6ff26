import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Job } from 'kubernetes-models/batch/v1/Job';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { runRpcload, type CliResult } from '../support/cli.ts';
import { startStatefulApi, type StatefulApi } from '../support/stateful-api.ts';
import { useTempDir } from '../support/temp-dir.ts';

/**
 * `rpcload deploy kubernetes` for a profile with setup and teardown: a setup Job, shards and a
 * merge that wait for its values, a teardown Job after the merge. The cluster is played locally:
 * every pod of every Job started at once, as `kubectl apply` starts them, each running its init
 * containers (the shell waits, through sh as in the image) and then its container, with the
 * pods' paths mapped to one local directory — only the scheduler and the volume are simulated.
 */
const SECRET = 'k8s-setup-secret';
const dir = useTempDir('rpcload-k8s-setup-');

interface Container {
  name: string;
  command?: string[];
  args?: string[];
  env: { name: string; value: string }[];
}
interface PodSpec {
  initContainers?: Container[];
  containers: Container[];
}
type Manifest = Record<string, unknown> & {
  kind: string;
  metadata: { name: string };
  spec: { template: { spec: PodSpec } };
};
const podOf = (job: Manifest): PodSpec => job.spec.template.spec;

function writeProfile(name: string, target: string, sections: { setup: boolean; teardown: boolean }): string {
  const path = join(dir, name);
  const fixture = sections.setup ? { fixture: '{{setup.fixtureId}}' } : {};
  const setup = { client: 'admin-1', steps: [{ method: 'orders.create', save: { fixtureId: 'id' } }] };
  const teardown = {
    client: 'admin-1',
    steps: [{ method: 'orders.delete', args: { id: sections.setup ? '{{setup.fixtureId}}' : 'o-1' } }],
  };
  writeFileSync(
    path,
    JSON.stringify({
      name: 'Fixture Load',
      target,
      clients: { pattern: 'k-{n}', count: 6, secret: '${RPCLOAD_SECRET}' },
      scenarios: [{ name: 'ping', steps: [{ method: 'ping', args: fixture }] }],
      ...(sections.setup ? { setup } : {}),
      ...(sections.teardown ? { teardown } : {}),
      phases: [{ name: 'load', duration: '2s', rate: 24 }],
      thresholds: ['error_rate < 1%'],
    }),
  );
  return path;
}

async function manifestsOf(
  profile: string,
  extra: string[] = [],
): Promise<{ manifests: Manifest[]; result: CliResult }> {
  const result = await runRpcload(['deploy', 'kubernetes', profile, '--shards', '3', ...extra]);
  return { manifests: parseAllDocuments(result.stdout).map((doc) => doc.toJS() as Manifest), result };
}

function validate(manifest: Manifest): void {
  const models: Record<string, new (data: never) => { validate(): void }> = { ConfigMap, PersistentVolumeClaim, Job };
  new models[manifest.kind]!(manifest as never).validate();
}

let api: StatefulApi;
beforeAll(async () => {
  api = await startStatefulApi({ secret: SECRET });
});
afterAll(() => api.close());

describe('rpcload deploy kubernetes: a profile with setup and teardown', () => {
  it('adds a setup Job, makes the shards and the merge wait for its values, and a teardown Job after; all validate', async () => {
    const { manifests, result } = await manifestsOf(
      writeProfile('both.json', 'https://staging.example.test', { setup: true, teardown: true }),
    );
    expect(result.stderr).toBe('');
    expect(manifests.map((m) => `${m.kind}/${m.metadata.name}`)).toEqual([
      'ConfigMap/fixture-load-profile',
      'PersistentVolumeClaim/fixture-load-results',
      'Job/fixture-load-setup',
      'Job/fixture-load-shards',
      'Job/fixture-load-merge',
      'Job/fixture-load-teardown',
    ]);
    for (const manifest of manifests) validate(manifest);
    const [, , setup, shards, merge, teardown] = manifests;
    const runId = podOf(shards!).containers[0]!.env.find((e) => e.name === 'RPCLOAD_RUN_ID')!.value;
    const values = `/results/${runId}.setup-values`;
    expect(podOf(setup!).containers[0]!.args).toEqual(['setup', '/etc/rpcload/profile/profile.json', '--out', values]);
    expect(podOf(shards!).containers[0]!.args).toEqual(expect.arrayContaining(['--setup-values', values]));
    expect(podOf(shards!).initContainers!.map((c) => c.name)).toEqual(['wait-for-setup']);
    expect(podOf(merge!).initContainers!.map((c) => c.name)).toEqual(['wait-for-setup']);
    expect(podOf(teardown!).initContainers!.map((c) => c.name)).toEqual(['wait-for-setup', 'wait-for-shards']);
    expect(podOf(teardown!).containers[0]!.args).toEqual([
      'teardown',
      '/etc/rpcload/profile/profile.json',
      '--setup-values',
      values,
    ]);
    // Setup creates things: a setup (or teardown) pod that failed is never run again.
    for (const job of [setup!, teardown!])
      expect((job.spec as unknown as { backoffLimit: number }).backoffLimit).toBe(0);
    // One alias-free document each: kubectl and every YAML reader take them as they are.
    expect(result.stdout).not.toMatch(/[&*]a\d/);
  });

  it('setup without teardown: no teardown Job; teardown without setup: no Job runs it, and a warning says so', async () => {
    const setupOnly = await manifestsOf(
      writeProfile('setup-only.json', 'https://x.test', { setup: true, teardown: false }),
    );
    expect(setupOnly.manifests.map((m) => m.metadata.name)).toEqual([
      'fixture-load-profile',
      'fixture-load-results',
      'fixture-load-setup',
      'fixture-load-shards',
      'fixture-load-merge',
    ]);
    const teardownOnly = await manifestsOf(
      writeProfile('teardown-only.json', 'https://x.test', { setup: false, teardown: true }),
    );
    expect(teardownOnly.result.code).toBe(0);
    expect(teardownOnly.manifests.map((m) => m.metadata.name)).toEqual([
      'fixture-load-profile',
      'fixture-load-results',
      'fixture-load-shards',
      'fixture-load-merge',
    ]);
    expect(teardownOnly.result.stderr).toMatch(
      /^warning: \S+teardown-only\.json has a teardown section but no setup: no pod runs it .*\n$/,
    );
    expect(podOf(teardownOnly.manifests[2]!).initContainers).toBeUndefined();
  });

  it("the Jobs' pods, all started at once: setup once, the 3 shards with its values, the merge, teardown once after the load", async () => {
    const profile = writeProfile('played.json', api.url, { setup: true, teardown: true });
    const { manifests } = await manifestsOf(profile, ['--start-in', '7s']);
    const [, , setupJob, shardJob, mergeJob, teardownJob] = manifests;
    const podRoot = join(dir, 'pod');
    mkdirSync(join(podRoot, 'results'), { recursive: true });
    const local = (text: string): string =>
      text.replace('/etc/rpcload/profile/profile.json', profile).replace(/^\/results/, join(podRoot, 'results'));
    const runPod = async (pod: PodSpec, index?: number): Promise<{ name: string; result: CliResult }[]> => {
      const ran: { name: string; result: CliResult }[] = [];
      for (const container of [...(pod.initContainers ?? []), ...pod.containers]) {
        const env = {
          ...Object.fromEntries(container.env.map((e) => [e.name, local(e.value)])),
          RPCLOAD_SECRET: SECRET,
          ...(index === undefined ? {} : { JOB_COMPLETION_INDEX: String(index) }),
        };
        const result =
          container.command === undefined
            ? await runRpcload(container.args!.map(local), { cwd: podRoot, env })
            : await runProgram(container.command, { ...process.env, ...env });
        ran.push({ name: container.name, result });
        if (result.code !== 0) break; // a failed init container fails the pod
      }
      return ran;
    };
    const pods = await Promise.all([
      runPod(podOf(setupJob!)),
      ...[0, 1, 2].map((index) => runPod(podOf(shardJob!), index)),
      runPod(podOf(mergeJob!)),
      runPod(podOf(teardownJob!)),
    ]);
    for (const pod of pods)
      for (const { name, result } of pod) expect(result.code, `${name}: ${result.stderr}`).toBe(0);
    const teardown = pods.at(-1)!.at(-1)!;
    expect(teardown.name).toBe('teardown');
    expect(teardown.result.stdout).toBe('teardown ok: 1 request by admin-1 (success 1)\n');

    const runId = podOf(shardJob!).containers[0]!.env.find((e) => e.name === 'RPCLOAD_RUN_ID')!.value;
    const merged = JSON.parse(readFileSync(join(podRoot, 'results', `${runId}.merged.json`), 'utf8')) as RunResult;
    expect(merged.run.shardSet).toMatchObject({ runId, count: 3, merged: [1, 2, 3], missing: [] });
    const creates = api.log.filter((call) => call.method === 'orders.create');
    const deletes = api.log.filter((call) => call.method === 'orders.delete');
    const load = api.log.filter((call) => call.method === 'ping');
    const fixtureId = [...api.creators.keys()][0]!;
    expect(creates).toEqual([expect.objectContaining({ client: 'admin-1', outcome: 'success' })]);
    expect(deletes).toEqual([
      expect.objectContaining({ client: 'admin-1', args: { id: fixtureId }, outcome: 'success' }),
    ]);
    expect(load.length).toBe(merged.summary.requests);
    for (const call of load) expect(call.args.fixture).toBe(fixtureId);
    expect(Math.min(...load.map((call) => call.atMs))).toBeGreaterThan(creates[0]!.atMs);
    expect(Math.max(...load.map((call) => call.atMs))).toBeLessThan(deletes[0]!.atMs);
  }, 90_000);

  it('a setup that wrote no values by the start instant fails the pods that wait for it, in one line; the shards wait gives up quietly', async () => {
    const { manifests } = await manifestsOf(
      writeProfile('nothing.json', 'https://x.test', { setup: true, teardown: true }),
    );
    const [waitSetup, waitShards] = podOf(manifests[5]!).initContainers!;
    const missing = join(dir, 'never-written');
    const setupWait = await runProgram(waitSetup!.command!, { ...process.env, SETUP_VALUES: missing, WAIT_UNTIL: '0' });
    expect(setupWait.code).toBe(1);
    expect(setupWait.stderr).toMatch(
      new RegExp(
        `^rpcload: no setup values at ${missing} by the start instant \\S+Z: setup failed or is still running; see kubectl logs job/fixture-load-setup\\n$`,
      ),
    );
    const shardsWait = await runProgram(waitShards!.command!, { ...process.env, MERGED_RESULT: missing, WAIT_S: '0' });
    expect(shardsWait.code).toBe(0);
    expect(shardsWait.stderr).toBe(
      `rpcload: no merged result at ${missing} after 0 s: the shards are past their deadline, so none is still running; tearing down\n`,
    );
  });
});

/** Run a container's command (`sh -c …`) as a process. */
function runProgram(command: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, command.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}
