import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Job } from 'kubernetes-models/batch/v1/Job';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { runRpcload } from '../support/cli.ts';
import { startTestServer } from '../support/server-helpers.ts';
import { useTempDir } from '../support/temp-dir.ts';

const SECRET = 'k8s-client-secret-value';

function writeProfile(dir: string, target: string, clients: number): string {
  const path = join(dir, 'profile.json');
  writeFileSync(
    join(dir, 'secrets.json'),
    JSON.stringify(Object.fromEntries(Array.from({ length: clients }, (_, i) => [`k-${i + 1}`, SECRET]))),
  );
  writeFileSync(
    path,
    JSON.stringify({
      name: 'Nightly Staging',
      target,
      clients: { pattern: 'k-{n}', count: clients, secretsFile: 'secrets.json' },
      scenarios: [{ name: 'ping', steps: [{ method: 'ping' }] }],
      phases: [{ name: 'load', duration: '2s', rate: 20 }],
      thresholds: ['error_rate < 1%'],
    }),
  );
  return path;
}

type Manifest = Record<string, unknown> & { kind: string; metadata: { name: string } };

/** Validate one object against the Kubernetes API schema of its kind (throws on a violation). */
function validate(manifest: Manifest): void {
  const models: Record<string, new (data: never) => { validate(): void }> = { ConfigMap, PersistentVolumeClaim, Job };
  const Model = models[manifest.kind];
  expect(Model, `no model for ${manifest.kind}`).toBeDefined();
  new Model!(manifest as never).validate();
}

interface ContainerSpec {
  args: string[];
  env: { name: string; value: string }[];
  workingDir: string;
}
const containerOf = (job: Manifest): ContainerSpec =>
  (job as unknown as { spec: { template: { spec: { containers: ContainerSpec[] } } } }).spec.template.spec
    .containers[0]!;

describe('rpcload deploy kubernetes', () => {
  it.each([1, 4, 64])(
    'prints manifests for %i shards that validate against the Kubernetes API schema',
    async (shards) => {
      const dir = useTempDir('rpcload-k8s-');
      const profile = writeProfile(dir, 'https://staging.example.test', 64);
      const { code, stdout, stderr } = await runRpcload([
        'deploy',
        'kubernetes',
        profile,
        '--shards',
        String(shards),
        '--image',
        'registry.example.test/rpcload:1',
      ]);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      const manifests = parseAllDocuments(stdout).map((doc) => doc.toJS() as Manifest);
      expect(manifests.map((m) => `${m.kind}/${m.metadata.name}`)).toEqual([
        'ConfigMap/nightly-staging-profile',
        'PersistentVolumeClaim/nightly-staging-results',
        'Job/nightly-staging-shards',
        'Job/nightly-staging-merge',
      ]);
      for (const manifest of manifests) validate(manifest);
      // The schema check bites: a malformed Job is refused.
      expect(() =>
        validate({ ...manifests[2]!, spec: { ...(manifests[2]!.spec as object), completions: String(shards) } }),
      ).toThrow(/completions/);
      const jobSpec = (
        manifests[2] as unknown as { spec: { completions: number; parallelism: number; completionMode: string } }
      ).spec;
      expect(jobSpec).toMatchObject({ completions: shards, parallelism: shards, completionMode: 'Indexed' });
      const env = Object.fromEntries(containerOf(manifests[2]!).env.map((e) => [e.name, e.value]));
      expect(env.RPCLOAD_SHARDS).toBe(String(shards));
      expect(env.RPCLOAD_RUN_ID).toMatch(/^nightly-staging-\d{8}T\d{6}Z-[0-9a-f]{8}$/);
      expect(containerOf(manifests[3]!).args).toEqual(
        expect.arrayContaining(['merge', '--run-id', env.RPCLOAD_RUN_ID]),
      );
      // The generator never reads the secrets file: no secret can reach the manifests.
      expect(stdout).not.toContain(SECRET);
    },
  );

  it('--metrics-port: every shard serves live metrics on that port, with scrape annotations, and still validates', async () => {
    const dir = useTempDir('rpcload-k8s-metrics-');
    const profile = writeProfile(dir, 'https://staging.example.test', 4);
    const { code, stdout } = await runRpcload([
      'deploy',
      'kubernetes',
      profile,
      '--shards',
      '2',
      '--metrics-port',
      '9464',
    ]);
    expect(code).toBe(0);
    const manifests = parseAllDocuments(stdout).map((doc) => doc.toJS() as Manifest);
    for (const manifest of manifests) validate(manifest);
    const shards = manifests[2] as unknown as {
      spec: {
        template: { metadata: { annotations: Record<string, string> }; spec: { containers: { ports: unknown[] }[] } };
      };
    };
    expect(shards.spec.template.metadata.annotations).toEqual({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': '9464',
      'prometheus.io/path': '/metrics',
    });
    expect(shards.spec.template.spec.containers[0]!.ports).toEqual([{ name: 'metrics', containerPort: 9464 }]);
    expect(containerOf(manifests[2]!).args).toEqual(
      expect.arrayContaining(['--metrics-listen', '0.0.0.0:9464', '--metrics-linger']),
    );
    // the merge pod serves nothing
    expect(containerOf(manifests[3]!).args).not.toContain('--metrics-listen');
  });

  it('deploy/kubernetes/staging.yaml is what the command prints for the example profile', async () => {
    const args = [
      'deploy',
      'kubernetes',
      'deploy/kubernetes/profile.json',
      '--shards',
      '4',
      '--run-id',
      'staging-example',
    ];
    const { code, stdout } = await runRpcload([
      ...args,
      '--image',
      'ghcr.io/your-org/rpcload:0.1.0',
      '--start-at',
      '2026-11-25T03:00:00Z',
    ]);
    expect(code).toBe(0);
    const regenerate = `node bin/rpcload.js ${args.join(' ')} --image ghcr.io/your-org/rpcload:0.1.0 --start-at 2026-11-25T03:00:00Z > deploy/kubernetes/staging.yaml`;
    expect(stdout, `deploy/kubernetes/staging.yaml is out of date: ${regenerate}`).toBe(
      readFileSync('deploy/kubernetes/staging.yaml', 'utf8'),
    );
  });

  it('refuses more shards than client IDs in one line', async () => {
    const dir = useTempDir('rpcload-k8s-');
    const { code, stderr } = await runRpcload([
      'deploy',
      'kubernetes',
      writeProfile(dir, 'https://x.test', 3),
      '--shards',
      '4',
    ]);
    expect(code).toBe(2);
    expect(stderr).toBe('rpcload: --shards 4: the profile has 3 client IDs, so at most 3 shards\n');
  });

  // What the cluster would do, played locally: each shard pod's args and env (JOB_COMPLETION_INDEX
  // as Kubernetes sets it), the profile and secrets in one directory, one results directory; then
  // the merge pod's args. Only the container runtime and the volume are simulated.
  it("the Jobs' own commands, run as the pods would run them, give one merged and judged result", async () => {
    const server = await startTestServer({ limit: 1000, clientPattern: { prefix: 'k-', secret: SECRET } });
    const dir = useTempDir('rpcload-k8s-');
    const profile = writeProfile(dir, server.url, 4);
    const { stdout } = await runRpcload(['deploy', 'kubernetes', profile, '--shards', '2', '--start-in', '4s']);
    const [, , shardJob, mergeJob] = parseAllDocuments(stdout).map((doc) => doc.toJS() as Manifest);
    const podRoot = join(dir, 'pod');
    mkdirSync(join(podRoot, 'results'), { recursive: true });
    const local = (args: string[]): string[] =>
      args.map((arg) =>
        arg.replace('/etc/rpcload/profile/profile.json', profile).replace(/^\/results/, join(podRoot, 'results')),
      );
    const shard = containerOf(shardJob!);
    const env = Object.fromEntries(shard.env.map((e) => [e.name, e.value]));
    const pods = await Promise.all(
      [0, 1].map((index) =>
        runRpcload(local(shard.args), { cwd: podRoot, env: { ...env, JOB_COMPLETION_INDEX: String(index) } }),
      ),
    );
    for (const pod of pods) expect(pod.code, pod.stderr).toBe(0);
    // One file per shard; each name starts with its own start second, so they may sort either way.
    const files = readdirSync(join(podRoot, 'results'));
    expect(files).toHaveLength(2);
    expect(files).toEqual(
      expect.arrayContaining([
        expect.stringMatching(new RegExp(`-${env.RPCLOAD_RUN_ID}\\.shard-1-of-2\\.json$`)),
        expect.stringMatching(new RegExp(`-${env.RPCLOAD_RUN_ID}\\.shard-2-of-2\\.json$`)),
      ]),
    );
    const merge = await runRpcload(local(containerOf(mergeJob!).args), { cwd: podRoot });
    expect(merge.code, merge.stderr).toBe(0);
    const merged = JSON.parse(
      readFileSync(join(podRoot, 'results', `${env.RPCLOAD_RUN_ID}.merged.json`), 'utf8'),
    ) as RunResult;
    expect(merged.run.shardSet).toMatchObject({ runId: env.RPCLOAD_RUN_ID, count: 2, merged: [1, 2], missing: [] });
    expect(merged.summary.requests).toBe(server.stats().requests - server.stats().tokensIssued);
    expect(merged.thresholds).toEqual([expect.objectContaining({ expr: 'error_rate < 1%', ok: true })]);
    expect(JSON.stringify(merged)).not.toContain(SECRET);
  }, 60_000);
});

/** A container builder this machine can use (a running Docker daemon), or why not. */
function containerBuilder(): string | null {
  const info = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], { encoding: 'utf8', timeout: 10_000 });
  return info.status === 0 ? null : 'no container builder here (docker info failed: no Docker daemon)';
}
const noBuilder = containerBuilder();

describe('the container image', () => {
  it.skipIf(noBuilder !== null)(
    `builds from the Dockerfile and runs as a non-root user${noBuilder === null ? '' : ` — skipped: ${noBuilder}`}`,
    () => {
      const tag = 'rpcload-test-image:latest';
      const build = spawnSync('docker', ['build', '-q', '-t', tag, '.'], { encoding: 'utf8', timeout: 600_000 });
      expect(build.status, build.stderr).toBe(0);
      const run = spawnSync('docker', ['run', '--rm', '--entrypoint', 'id', tag, '-u'], {
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(run.stdout.trim()).toBe('1000');
      const help = spawnSync('docker', ['run', '--rm', tag, 'run', '--help'], { encoding: 'utf8', timeout: 60_000 });
      expect(help.stdout).toContain('--shard <I/N>');
    },
    660_000,
  );
});
