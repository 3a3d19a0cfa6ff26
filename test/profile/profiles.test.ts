import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadPlan } from '../../src/profile/load-profile.ts';
import type { Plan } from '../../src/profile/plan.ts';

const PROFILES_DIR = fileURLToPath(new URL('../../profiles/', import.meta.url));
const profileFiles = readdirSync(PROFILES_DIR).filter((name) => name.endsWith('.json'));
// Without any environment: example profiles must work out of the box (defaults for ${VAR}).
const load = (name: string): Promise<Plan> => loadPlan(`${PROFILES_DIR}${name}`, undefined, {});

const totalS = (plan: Plan): number => plan.phases.reduce((sum, phase) => sum + phase.durationMs, 0) / 1000;
/** Requests one iteration sends on average (a pagination walk counted at its page cap). */
function requestsPerIteration(plan: Plan): number {
  const totalWeight = plan.scenarios.reduce((sum, s) => sum + s.weight, 0);
  const requests = plan.scenarios.reduce(
    (sum, s) => sum + s.weight * s.steps.reduce((n, step) => n + (step.paginate?.maxPages ?? 1), 0),
    0,
  );
  return requests / totalWeight;
}
/** Requests per rate-limit window the whole run sends at the peak arrival rate. */
function peakRequestsPerWindow(plan: Plan): number {
  const peakPerS = Math.max(
    ...plan.phases.map((p) => (p.load.kind === 'rate' ? Math.max(p.load.fromPerS, p.load.toPerS) : 0)),
  );
  return peakPerS * requestsPerIteration(plan) * (plan.rateLimit.windowMs / 1000);
}

describe('example profiles', () => {
  it('include the four documented ones', () => {
    expect(profileFiles).toEqual(
      expect.arrayContaining(['demo.json', 'smoke.json', 'capacity-ramp.json', 'ratelimit-soak.json']),
    );
  });

  it.each(profileFiles)('%s validates, references the schema and passes its thresholds through', async (name) => {
    const plan = await load(name);
    const raw = JSON.parse(readFileSync(`${PROFILES_DIR}${name}`, 'utf8')) as {
      $schema?: string;
      description?: string;
    };
    expect(raw.$schema).toBe('../schemas/profile.schema.json');
    // Editors resolve $schema relative to the profile: the file must be there.
    expect(
      (JSON.parse(readFileSync(new URL(raw.$schema!, `file://${PROFILES_DIR}`), 'utf8')) as { title: string }).title,
    ).toBe('rpcload profile');
    expect(raw.description).toBeTruthy();
    expect(plan.target).toBeNull(); // runnable as-is against the embedded server
    expect(plan.thresholds.length).toBeGreaterThan(0);
  });

  it('demo.json: ~30 s, ≥ 20 clients, a realistic mix, and exactly one client greedy enough to be refused', async () => {
    const plan = await load('demo.json');
    expect(totalS(plan)).toBeGreaterThanOrEqual(25);
    expect(totalS(plan)).toBeLessThanOrEqual(35);
    expect(plan.clients.length).toBeGreaterThanOrEqual(20);
    expect(plan.rateLimit.policy).toBe('honour');
    const methods = plan.scenarios.flatMap((s) => s.steps.map((step) => step.method));
    expect(methods).toEqual(expect.arrayContaining(['ping', 'echo', 'items.list', 'work', 'flaky']));
    const echo = plan.scenarios.flatMap((s) => s.steps).find((step) => step.method === 'echo');
    expect(echo?.body.variability).not.toBe('static');
    const walk = plan.scenarios.flatMap((s) => s.steps).find((step) => step.method === 'items.list');
    expect(walk?.paginate?.maxPages).toBeGreaterThan(1);
    expect(plan.phases[0]!.load).toMatchObject({ kind: 'rate' });
    expect(plan.phases.length).toBeGreaterThanOrEqual(2);

    const perWindow = peakRequestsPerWindow(plan);
    const totalWeight = plan.clients.reduce((sum, c) => sum + c.weight, 0);
    const [greedy, ...others] = [...plan.clients].sort((a, b) => b.weight - a.weight);
    // The greedy client's share exceeds its quota…
    expect((perWindow * greedy!.weight) / totalWeight).toBeGreaterThan(plan.rateLimit.limit * 1.5);
    // …while the others stay under it even if they absorb everything the paused greedy client does not send.
    expect(perWindow / others.length).toBeLessThan(plan.rateLimit.limit * 0.5);
    expect(others.every((c) => c.weight === 1)).toBe(true);
  });

  it('smoke.json: a few seconds, a few clients', async () => {
    const plan = await load('smoke.json');
    expect(totalS(plan)).toBeLessThanOrEqual(10);
    expect(plan.clients.length).toBeLessThanOrEqual(5);
    expect(peakRequestsPerWindow(plan) / plan.clients.length).toBeLessThan(plan.rateLimit.limit);
  });

  it('capacity-ramp.json: a linear ramp of arrival rate that keeps every client under its quota', async () => {
    const plan = await load('capacity-ramp.json');
    expect(plan.phases.some((p) => p.load.kind === 'rate' && p.load.toPerS >= 5 * p.load.fromPerS)).toBe(true);
    expect(peakRequestsPerWindow(plan) / plan.clients.length).toBeLessThan(plan.rateLimit.limit);
  });

  it('ratelimit-soak.json: every client at ~1.5× its quota for several windows, honouring 429s', async () => {
    const plan = await load('ratelimit-soak.json');
    const perClientPerWindow = peakRequestsPerWindow(plan) / plan.clients.length;
    expect(perClientPerWindow / plan.rateLimit.limit).toBeCloseTo(1.5, 1);
    expect(totalS(plan) * 1000).toBeGreaterThanOrEqual(4 * plan.rateLimit.windowMs);
    expect(plan.rateLimit.policy).toBe('honour');
  });
});
