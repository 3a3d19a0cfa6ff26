/**
 * What `rpcload deploy kubernetes` does once its flags are parsed; loaded only when it runs
 * (deploy.ts declares the flags).
 */
import { stringify } from 'yaml';
import { RpcloadError } from '../errors.ts';
import { readProfileDocument } from '../profile/load-profile.ts';
import { kubernetesManifests, profileFacts } from '../deploy/kubernetes-manifests.ts';
import { parseStartAt, resolveRunId } from '../session/distributed/shard-spec.ts';
import { parseDurationMs } from '../util/duration.ts';

export interface KubernetesFlags {
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

/** `rpcload deploy kubernetes PROFILE --shards N`: the manifests printed as YAML. */
export async function kubernetesAction(profilePath: string, flags: KubernetesFlags): Promise<void> {
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
  if (facts.steps.teardown && !facts.steps.setup) {
    process.stderr.write(
      `warning: ${profilePath} has a teardown section but no setup: no pod runs it ` +
        '(a shard never runs teardown, and `rpcload teardown` needs the values `rpcload setup` wrote)\n',
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
    steps: facts.steps,
  });
  // No anchors and aliases: the Jobs share objects (a security context), each document spells them out.
  const yaml = { lineWidth: 0, aliasDuplicateObjects: false };
  process.stdout.write(manifests.map((manifest) => stringify(manifest, yaml)).join('---\n'));
}
