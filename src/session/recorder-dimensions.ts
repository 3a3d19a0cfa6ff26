/**
 * What a run's recorder is made of, from its plan: the names behind a sample's indexes and the
 * slices it keeps (see metrics/slices.ts). The main thread and each load worker make theirs from
 * their own share of the plan the same way.
 */
import { planMethods } from '../driver/compiled-plan.ts';
import type { RecorderDimensions } from '../metrics/sample.ts';
import type { Plan } from '../profile/plan.ts';
import { planSteps, selectionOf } from '../profile/selection.ts';
import { goodputLatencyBoundMs } from '../profile/thresholds.ts';

/**
 * The recorder's dimensions for a plan: its methods, phases, clients and workloads by name, its
 * steps (each with its method and tags), and the selection of each threshold selector (the cells it
 * picks, the client it names): plain data a worker's recorder is made from as it is.
 */
export function dimensionsOf(plan: Plan): RecorderDimensions {
  const methods = planMethods(plan);
  // Every scoped threshold's selection; the whole run's ('') too when a threshold on it is judged live.
  const keys = [
    ...new Set(plan.thresholds.filter((t) => t.selector.length > 0 || t.abortOnFail).map((t) => t.selectorKey)),
  ];
  return {
    methods,
    phases: plan.phases.map((p) => p.name),
    clients: plan.clients.map((c) => c.id),
    ...(plan.replicas.length > 0 ? { replicas: [...plan.replicas] } : {}),
    workloads: plan.workloads.map((w) => w.name),
    phaseWorkloads: plan.phases.map((p) => p.workload),
    steps: planSteps(plan).map(({ step }) => ({
      method: methods.indexOf(step.method),
      tags: Object.entries(step.tags).map(([key, value]) => `${key}:${value}`),
    })),
    selections: keys.map((key) => {
      const { cells, client } = selectionOf(plan, plan.thresholds.find((t) => t.selectorKey === key)!.selector);
      return { key, cells: [...cells], client };
    }),
    goodputBoundMs: goodputLatencyBoundMs(plan.thresholds),
  };
}
