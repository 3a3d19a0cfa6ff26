/**
 * compare per workload: which workloads two runs share (compared side by side: achieved rate,
 * goodput, p50, p99, error rate) and which only one of them ran — reported as a line, not an
 * error. A run of one workload is the whole run: it gets no workload rows of its own. Workload
 * rows inform; `--fail-on` gates the whole run and its methods, as before workloads.
 */
import type { RunResult } from '../../contract/result-schema.ts';
import type { MetricName } from './metrics.ts';

/** The metrics compared per workload, in display order. */
export const WORKLOAD_METRICS: readonly MetricName[] = ['rps', 'goodput', 'p50', 'p99', 'errors'];

/** A workload only one of the runs has. */
export interface WorkloadInOneRun {
  readonly name: string;
  readonly run: 'base' | 'head';
  /** Its requests in that run. */
  readonly requests: number;
}

export interface WorkloadPresence {
  /** Workloads both runs have, in the head's order (then the base's). */
  readonly compared: readonly string[];
  readonly inOneRun: readonly WorkloadInOneRun[];
}

type WorkloadCounts = Readonly<Record<string, { readonly requests: number }>> | undefined;

/**
 * Which workloads to compare and which to report as present in one run only. Files without
 * `byWorkload` (written before workloads) and runs whose only workload is the same one have none.
 */
export function workloadPresence(base: WorkloadCounts, head: WorkloadCounts): WorkloadPresence {
  const baseNames = Object.keys(base ?? {});
  const headNames = Object.keys(head ?? {});
  const names = [...new Set([...headNames, ...baseNames])];
  if (names.length <= 1) return { compared: [], inOneRun: [] };
  const compared = names.filter((name) => baseNames.includes(name) && headNames.includes(name));
  const inOneRun = names.flatMap((name): WorkloadInOneRun[] => {
    if (!baseNames.includes(name)) return [{ name, run: 'head', requests: head![name]!.requests }];
    if (!headNames.includes(name)) return [{ name, run: 'base', requests: base![name]!.requests }];
    return [];
  });
  return { compared, inOneRun };
}

/** The workloads of `inOneRun`, by name. */
export const namesInOneRun = (presence: WorkloadPresence): ReadonlySet<string> => new Set(presence.inOneRun.map((w) => w.name));

/** "workload orders: only in head (120 requests), not compared" */
export function workloadInOneRunLine(workload: WorkloadInOneRun, name: string = workload.name): string {
  const noun = workload.requests === 1 ? 'request' : 'requests';
  return `workload ${name}: only in ${workload.run} (${workload.requests} ${noun}), not compared`;
}

interface ConfigWorkload {
  readonly name?: unknown;
  readonly clients?: readonly { readonly id?: unknown }[];
  readonly scenarios?: readonly { readonly name?: unknown }[];
}

/**
 * A run's config without what only the `dropped` workloads brought: their phases, and the clients
 * and scenarios no other workload uses. The load-shape check then judges the load both runs share.
 */
export function configWithoutWorkloads(config: RunResult['config'], dropped: ReadonlySet<string>): RunResult['config'] {
  const workloads = Array.isArray(config.workloads) ? (config.workloads as ConfigWorkload[]) : [];
  // Both runs' configs go through here, so both name their phases' workloads the same way.
  if (dropped.size === 0 || workloads.length === 0) return config;
  const kept = workloads.filter((w) => !dropped.has(String(w.name)));
  const keptClients = new Set(kept.flatMap((w) => (w.clients ?? []).map((c) => c.id)));
  const keptScenarios = new Set(kept.flatMap((w) => (w.scenarios ?? []).map((s) => s.name)));
  const byIndex = workloads.map((w) => String(w.name));
  const list = (key: string): unknown[] => (Array.isArray(config[key]) ? (config[key] as unknown[]) : []);
  const phases = list('phases')
    .map((phase) => phase as { workload?: unknown })
    .filter((phase) => typeof phase.workload !== 'number' || !dropped.has(byIndex[phase.workload] ?? ''))
    .map((phase) => (typeof phase.workload === 'number' ? { ...phase, workload: byIndex[phase.workload] } : phase));
  return {
    ...config,
    phases,
    clients: list('clients').filter((c) => keptClients.has((c as { id?: unknown }).id)),
    scenarios: list('scenarios').filter((s) => keptScenarios.has((s as { name?: unknown }).name)),
    workloads: kept,
  };
}
