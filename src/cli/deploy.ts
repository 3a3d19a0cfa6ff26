/** `rpcload deploy kubernetes PROFILE --shards N`: print the manifests of a sharded run (apply them with kubectl). */
import { Option, type Command } from 'commander';
import { RpcloadError } from '../errors.ts';
import { readProfileDocument } from '../profile/load-profile.ts';
import { kubernetesManifests, profileFacts } from '../deploy/kubernetes-manifests.ts';
import { parseStartAt, resolveRunId } from '../session/distributed/shard-spec.ts';
import { parseDurationMs } from '../util/duration.ts';
import { TOOL } from '../version.ts';
import { durationMs, positiveInt } from './parsers.ts';

interface KubernetesFlags {
  shards: number;
  image: string;
  name?: string;
  namespace?: string;
  runId?: string;
  startIn: number;
  startAt?: string;
  cpu: string;
  memory: string;
  storage: string;
  storageClass?: string;
  metricsPort?: number;
  allowInlineSecrets?: boolean;
}

/** A DNS-1123 label for object names: lower case, digits and '-', at most 40 so suffixes fit. */
function objectName(text: string): string {
  const name = text
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return name === '' ? 'rpcload' : name;
}

export function registerDeployCommand(program: Command): void {
  const deploy = program.command('deploy').description('print what runs a sharded load on an engine you already have');
  deploy
    .command('kubernetes')
    .description(
      'print Kubernetes manifests (YAML) for PROFILE as N shards: the profile ConfigMap, a results volume claim, an Indexed Job of shards and a merge Job that judges the union; client secrets come from the Secret <name>-secrets, which you create',
    )
    .argument('<profile>', 'profile file (its target must be reachable from the cluster)')
    .requiredOption('--shards <n>', 'shards (pods), at most one per client ID', positiveInt)
    .option('--image <image>', 'container image built from the Dockerfile', `rpcload:${TOOL.version}`)
    .option('--name <name>', 'object name prefix (default: the profile name)')
    .option('--namespace <ns>', 'namespace of every object')
    .option('--run-id <id>', 'run id shared by the shards (default: derived from the profile and the start instant)')
    .addOption(
      new Option('--start-in <duration>', 'start the shards this long after now: time to schedule pods and pull the image')
        .argParser(durationMs)
        .default(120_000, '2m'),
    )
    .option('--start-at <time>', 'start the shards at this instant instead (ISO 8601 with a zone, or Unix seconds)')
    .option('--cpu <quantity>', 'CPU each shard pod requests', '1')
    .option('--memory <quantity>', 'memory each pod requests and is limited to', '512Mi')
    .option('--storage <quantity>', 'size of the results volume claim (ReadWriteMany)', '1Gi')
    .option('--storage-class <name>', 'storage class of the results volume claim (default: the cluster default)')
    .option(
      '--metrics-port <port>',
      'each shard serves live Prometheus metrics on this port, with scrape annotations (docs/metrics.md)',
      positiveInt,
    )
    .option('--allow-inline-secrets', 'copy secrets written into the profile into the ConfigMap anyway (default: refuse, exit 2)')
    .action(async (profilePath: string, flags: KubernetesFlags) => {
      const { text, value } = await readProfileDocument(profilePath);
      const facts = profileFacts(profilePath, value, (duration) => parseDurationMs(duration));
      const name = objectName(flags.name ?? facts.name);
      const [first, ...more] = facts.inlineSecrets;
      if (first !== undefined && flags.allowInlineSecrets !== true) {
        throw new RpcloadError(
          'inline_secret',
          `${profilePath}: ${first}${more.length > 0 ? ` (and ${more.length} more)` : ''}: a secret written into the profile would be stored in the clear in the ConfigMap; write it as "\${VAR}" and put VAR in the Secret ${name}-secrets (its keys become the pods' environment; see docs/distributed.md), or pass --allow-inline-secrets`,
        );
      }
      if (flags.shards > facts.clientCount) {
        throw new RpcloadError(
          'bad_flag',
          `--shards ${flags.shards}: the profile has ${facts.clientCount} client IDs, so at most ${facts.clientCount} shards`,
        );
      }
      if (typeof (value as { target?: unknown }).target !== 'string' || (value as { target: string }).target === '') {
        process.stderr.write(
          `warning: ${profilePath} has no target: every shard would load its own embedded server; set "target" (or \${VAR} from the Secret)\n`,
        );
      }
      const startAtMs =
        flags.startAt === undefined
          ? Math.ceil((Date.now() + flags.startIn) / 1000) * 1000
          : parseStartAt(flags.startAt, '--start-at', Date.now());
      const manifests = kubernetesManifests({
        name,
        namespace: flags.namespace,
        image: flags.image,
        shards: flags.shards,
        profileText: text,
        secretsFileName: facts.secretsFileName,
        runId: resolveRunId(flags.runId, { name }, startAtMs, flags.shards),
        startAt: new Date(startAtMs).toISOString(),
        loadDurationMs: facts.loadDurationMs,
        cpu: flags.cpu,
        memory: flags.memory,
        storage: flags.storage,
        storageClass: flags.storageClass,
        metricsPort: flags.metricsPort,
      });
      // yaml is loaded here, not at start-up: only this command writes YAML.
      const { stringify } = await import('yaml');
      process.stdout.write(manifests.map((manifest) => stringify(manifest, { lineWidth: 0 })).join('---\n'));
    });
}
