/**
 * The resolved plan as plain JSON, for the result file's `config`: every default visible, client
 * secrets replaced by "[redacted]", templates shown as written. Secrets can only hide in the
 * parts a user wrote freely (token form fields, step args; a target URL with credentials is
 * refused when the profile is validated); those are scrubbed by key and by value, the rest is
 * built from known, secret-free fields.
 */
import { redactSecrets, REDACTED } from '../util/redact.ts';
import type { Plan } from './plan.ts';

export function describePlan(plan: Plan): Record<string, unknown> {
  const secrets = plan.clients.map((client) => client.secret);
  const scrub = <T>(value: T): T => redactSecrets(value, secrets);
  // A fresh, unfrozen copy: the caller may add to it (the result writer owns `config`).
  return structuredClone({
    name: plan.name,
    source: plan.source,
    target: plan.target,
    embeddedServer: plan.target === null ? { ...plan.embeddedServer } : null,
    auth: { ...plan.auth, extraFields: scrub({ ...plan.auth.extraFields }) },
    clients: plan.clients.map((client) => ({ id: client.id, secret: REDACTED, weight: client.weight })),
    scenarios: plan.scenarios.map((scenario) => ({
      name: scenario.name,
      weight: scenario.weight,
      steps: scenario.steps.map((step) => ({
        method: step.method,
        args: scrub(step.body.source),
        variability: step.body.variability,
        paginate: step.paginate,
        thinkMs: step.thinkMs,
      })),
    })),
    phases: plan.phases,
    rateLimit: plan.rateLimit,
    thresholds: plan.thresholds.map((threshold) => threshold.expr),
    http: { ...plan.http, ca: plan.http.ca === null ? null : `(PEM, ${plan.http.ca.length} characters)` },
    seed: plan.seed,
    checkpointEveryMs: plan.checkpointEveryMs,
  });
}
