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
import type { PhasePlan, Plan } from './plan.ts';

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
      })),
    })),
    phases: plan.phases,
    rateLimit: plan.rateLimit,
    thresholds: plan.thresholds.map((threshold) => threshold.expr),
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

function redactUrlCredentials(target: string): string {
  const url = new URL(target);
  if (url.username === '' && url.password === '') return target;
  return target.replace(/\/\/[^@/]*@/, `//${REDACTED}@`);
}

/** Human description of phases' load: "rate 100/s", "ramp 10→200/s", "concurrency 8", joined by " · ". */
export function describeLoad(phases: readonly PhasePlan[]): string {
  const parts = phases.map(({ load }) => {
    if (load.kind === 'concurrency') return `concurrency ${load.vus}`;
    return load.fromPerS === load.toPerS ? `rate ${load.fromPerS}/s` : `ramp ${load.fromPerS}→${load.toPerS}/s`;
  });
  return [...new Set(parts)].join(' · ');
}

/** open (arrival rate), closed (concurrency), or mixed across phases. */
export function runModel(phases: readonly PhasePlan[]): RunInfo['model'] {
  const kinds = new Set(phases.map((phase) => phase.load.kind));
  if (kinds.size > 1) return 'mixed';
  return kinds.has('concurrency') ? 'closed' : 'open';
}
