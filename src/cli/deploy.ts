/**
 * `rpcload deploy kubernetes PROFILE --shards N`: print the manifests of a sharded run (apply them
 * with kubectl). This file declares the flags; deploy-action.ts, loaded when the command runs, does it.
 */
import { Option, type Command } from 'commander';
import { TOOL } from '../version.ts';
import { durationMs, positiveInt } from './parsers.ts';
import type { KubernetesFlags } from './deploy-action.ts';

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
      new Option(
        '--start-in <duration>',
        'start the shards this long after now: time to schedule pods and pull the image',
      )
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
    .option(
      '--allow-inline-secrets',
      'copy secrets written into the profile into the ConfigMap anyway (default: refuse, exit 2)',
    )
    .action(async (profilePath: string, flags: KubernetesFlags) => {
      const { kubernetesAction } = await import('./deploy-action.ts');
      await kubernetesAction(profilePath, flags);
    });
}
