// test-pass: both-clients
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server/start-server.ts';
import type { FaultName, ServerHandle } from '../../src/server/options.ts';
import { runPlan, testPlan } from '../support/load-run.ts';

let server: ServerHandle | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/; // eslint-disable-line no-control-regex

async function outcomesWith(
  faults: FaultName[],
  profile: Record<string, unknown> = {},
  serverLimit = 10_000,
): Promise<Record<string, number>> {
  server = await startServer({ limit: serverLimit, faults, chaosRate: 0.25, seed: 7 });
  const plan = testPlan(
    { scenarios: [{ name: 'ping', steps: [{ method: 'ping' }] }], phases: [{ duration: '2s', rate: 50 }], ...profile },
    server.url,
  );
  const { outcome, result } = await runPlan(plan, server.url);
  expect(outcome.status).toBe('completed'); // a hostile server never crashes a run
  for (const key of Object.keys(result.summary.outcomes)) expect(key).not.toMatch(CONTROL);
  return result.summary.outcomes;
}

describe('every outcome class comes from its server behaviour', () => {
  it.each([
    // fault → outcome key it must produce (besides successes)
    [['chaos-garbage'], 'envelope_violation'],
    [['chaos-html-502'], 'http:502'],
    [['chaos-reset'], /^transport:/],
    [['chaos-escapes'], /^error:[A-Za-z0-9_.:-]+$/],
  ] as const)('%j → %s', async (faults, expected) => {
    const outcomes = await outcomesWith([...faults]);
    expect(outcomes.success).toBeGreaterThan(0);
    const failures = Object.keys(outcomes).filter((key) => key !== 'success');
    expect(failures.length).toBeGreaterThan(0);
    for (const key of failures) expect(key).toMatch(expected);
  });

  it('an enveloped 429 is error:rate_limit_exceeded, an unenveloped one http:429', async () => {
    const ignore = { rateLimit: { on429: 'ignore' } };
    expect(Object.keys(await outcomesWith([], ignore, 20)).sort()).toEqual(['error:rate_limit_exceeded', 'success']);
    await server?.close();
    expect(Object.keys(await outcomesWith(['429-no-envelope'], ignore, 20)).sort()).toEqual(['http:429', 'success']);
  });

  it('an envelope error code from a method is error:<code>', async () => {
    const outcomes = await outcomesWith([], { scenarios: [{ name: 'flaky', steps: [{ method: 'flaky' }] }] });
    expect(Object.keys(outcomes).sort()).toEqual(['error:unexpected_error', 'success']);
  });

  it('a reply over the body cap is read and discarded, and reported as such', async () => {
    const outcomes = await outcomesWith(['chaos-huge'], { http: { bodyCapBytes: 65_536 } });
    expect(Object.keys(outcomes).sort()).toEqual(['envelope_violation', 'success']);
  });

  it('a reply dripped out slowly completes as a slow success', async () => {
    server = await startServer({ limit: 10_000, faults: ['chaos-slow'], chaosRate: 0.25, seed: 7 });
    const plan = testPlan(
      { scenarios: [{ name: 'ping', steps: [{ method: 'ping' }] }], phases: [{ duration: '1s', rate: 20 }] },
      server.url,
    );
    const { result } = await runPlan(plan, server.url);
    expect(result.summary.outcomes).toEqual({ success: 20 });
    expect(result.summary.serviceTimeMs.max).toBeGreaterThan(2000); // the drip takes ~3 s
  });

  it('a reply that does not start within the headers timeout is a transport timeout', async () => {
    const slow = {
      scenarios: [{ name: 'slow', steps: [{ method: 'work', args: { delayMs: 3000 } }] }],
      http: { headersTimeout: '300ms' },
      phases: [{ duration: '1s', rate: 5 }],
    };
    expect(await outcomesWith([], slow)).toEqual({ 'transport:timeout': 5 });
  });
});
