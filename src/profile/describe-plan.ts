/**
 * A resolved plan described. As plain JSON, for the result file's `config`: every default visible,
 * client secrets replaced by "[redacted]", certificates and keys named by their file only,
 * templates shown as written. Secrets can only hide in the parts a user wrote freely (token form
 * fields, step args; a target URL with credentials is refused when the profile is validated,
 * replica URLs are scrubbed all the same); those are scrubbed by key and by value, the rest is
 * built from known, secret-free fields. And its phases' load, in words for people and as the run's
 * timing model.
 */
import type { RunInfo } from '../contract/result-schema.ts';
import { redactSecrets, REDACTED } from '../util/redact.ts';
import { isOpenModel, loadText } from './phase-load.ts';
import type { PhasePlan, Plan, SetupPlan } from './plan.ts';

export function describePlan(plan: Plan): Record<string, unknown> {
  const secrets = plan.clients.map((client) => client.secret);
  const scrub = <T>(value: T): T => redactSecrets(value, secrets);
  // A fresh, unfrozen copy: the caller may add to it (the result writer owns `config`).
  return structuredClone({
    name: plan.name,
    source: plan.source,
    target: plan.target === null ? null : redactUrlCredentials(plan.target),
    replicas: plan.replicas.map(redactUrlCredentials),
    replicaAffinity: plan.replicaAffinity,
    embeddedServer: plan.target === null ? { ...plan.embeddedServer } : null,
    auth: { ...plan.auth, extraFields: scrub({ ...plan.auth.extraFields }) },
    clients: plan.clients.map((client) => ({
      id: client.id,
      secret: REDACTED,
      weight: client.weight,
      ...(client.tls === null ? {} : { certificate: client.tls.source }),
      ...(client.assertionKey === null
        ? {}
        : { signingKey: `${client.assertionKey.format.toUpperCase()} key, ${client.assertionKey.alg}` }),
    })),
    scenarios: plan.scenarios.map((scenario) => ({
      name: scenario.name,
      weight: scenario.weight,
      steps: scenario.steps.map((step) => ({
        method: step.method,
        args: scrub(step.body.source),
        variability: step.body.variability,
        paginate: step.paginate,
        think: step.think,
        ...(step.save.length > 0 ? { save: Object.fromEntries(step.save.map((save) => [save.name, save.path])) } : {}),
        ...(step.expect === null ? {} : { expect: step.expect, onFail: step.onFail }),
        ...(Object.keys(step.tags).length > 0 ? { tags: step.tags } : {}),
      })),
    })),
    workloads: plan.workloads.map((workload) => ({
      name: workload.name,
      clients: workload.clients.map((c) => ({ id: plan.clients[c.index]!.id, weight: c.weight })),
      scenarios: workload.scenarios.map((s) => ({ name: plan.scenarios[s.index]!.name, weight: s.weight })),
      startAfterMs: workload.startAfterMs,
      phases: workload.phases.map((p) => plan.phases[p]!.name),
    })),
    phases: plan.phases,
    ...(plan.setup === null ? {} : { setup: describeSteps(plan, plan.setup, scrub) }),
    ...(plan.teardown === null ? {} : { teardown: describeSteps(plan, plan.teardown, scrub) }),
    rateLimit: plan.rateLimit,
    thresholds: plan.thresholds.map((threshold) =>
      threshold.abortOnFail
        ? { threshold: threshold.expr, abortOnFail: true, delayAbortEvalMs: threshold.delayAbortEvalMs }
        : threshold.expr,
    ),
    http: {
      ...plan.http,
      ca: plan.http.ca === null ? null : `(PEM, ${plan.http.ca.length} characters)`,
      identity: plan.http.identity === null ? null : `(client certificate ${plan.http.identity.source})`,
    },
    sign: plan.sign,
    trace: {
      mode: plan.trace.mode,
      sampleRatio: plan.trace.sampleRatio,
      tracestate: plan.trace.tracestate,
      baggageRunId: plan.trace.baggageRunId,
    },
    report: plan.report,
    seed: plan.seed,
    checkpointEveryMs: plan.checkpointEveryMs,
    ...(plan.data.length > 0 ? { data: plan.data } : {}),
  });
}

/** Setup or teardown as written: its client, steps (args scrubbed) and deadline. */
function describeSteps(plan: Plan, steps: SetupPlan, scrub: <T>(value: T) => T): Record<string, unknown> {
  return {
    client: plan.clients[steps.client]?.id ?? null,
    timeoutMs: steps.timeoutMs,
    steps: steps.steps.map((step) => ({
      method: step.method,
      args: scrub(step.body.source),
      ...(step.save.length > 0 ? { save: Object.fromEntries(step.save.map((save) => [save.name, save.path])) } : {}),
      ...(step.expect === null ? {} : { expect: step.expect }),
    })),
  };
}

function redactUrlCredentials(target: string): string {
  const url = new URL(target);
  if (url.username === '' && url.password === '') return target;
  return target.replace(/\/\/[^@/]*@/, `//${REDACTED}@`);
}

/**
 * Human description of phases' load: "rate 100/s", "ramp 10→200/s", "concurrency 8", "2 iterations
 * per client", "replay", joined by " · ".
 */
export function describeLoad(phases: readonly PhasePlan[]): string {
  const parts = phases.map(({ load }) => {
    switch (load.kind) {
      case 'concurrency':
        return `concurrency ${load.vus}`;
      case 'iterations':
        return loadText(load);
      case 'replay':
        return 'replay';
      case 'rate':
        return load.fromPerS === load.toPerS ? `rate ${load.fromPerS}/s` : `ramp ${load.fromPerS}→${load.toPerS}/s`;
    }
  });
  return [...new Set(parts)].join(' · ');
}

/** open (an arrival rate, a replay), closed (users, iterations), or mixed across phases. */
export function runModel(phases: readonly PhasePlan[]): RunInfo['model'] {
  const models = new Set(phases.map((phase) => (isOpenModel(phase.load) ? 'open' : 'closed')));
  if (models.size > 1) return 'mixed';
  return models.has('closed') ? 'closed' : 'open';
}
