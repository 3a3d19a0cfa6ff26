/**
 * Hostile servers against the deadlines of issue 12 §1–2: every wait ends (trickling and endless
 * bodies, never-answering servers, garbage), phases end at their duration, requests left
 * unanswered are counted and said, and loads this machine cannot honour are refused up front.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import type { LoadEngine } from '../../src/driver/engine.ts';
import { runOpenPhase } from '../../src/driver/open-loop.ts';
import { createPacer } from '../../src/driver/pacer.ts';
import { buildPlan, type PlanOverrides } from '../../src/profile/build-plan.ts';
import { rateLoad } from '../../src/profile/phase-load.ts';
import { ProfileError } from '../../src/profile/problems.ts';
import { readResultFile } from '../../src/result-file/read-result.ts';
import { runRpcload } from '../support/cli.ts';
import type { TestServer } from '../support/http-server.ts';
import { runPlan, testPlan } from '../support/load-run.ts';
import {
  apiRequests,
  garbage,
  hugeBody,
  hugeHeaders,
  neverAnswer,
  startHostileApi,
  trickle,
  type Behaviour,
} from '../support/stalling-api.ts';
import { useTempDir } from '../support/temp-dir.ts';

let server: TestServer | undefined;
const dir = useTempDir('rpcload-deadlines-');
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const ping = [{ name: 'ping', steps: [{ method: 'ping' }] }];

/** Outcomes of a short in-process run against an API behaving as `api`. */
async function outcomesAgainst(api: Behaviour, http: Record<string, unknown> = {}): Promise<Record<string, number>> {
  server = await startHostileApi(api);
  const plan = testPlan(
    { scenarios: ping, phases: [{ duration: '500ms', rate: 6 }], http: { preconnect: false, ...http } },
    server.url,
  );
  const { outcome, result } = await runPlan(plan, server.url);
  expect(outcome.status).toBe('completed');
  return result.summary.outcomes;
}

/** A profile file for the CLI, aimed at `target`. */
async function profileFile(name: string, profile: Record<string, unknown>): Promise<string> {
  const path = join(dir, `${name}-profile.json`); // not the name of a result file: an output is never its own profile
  await writeFile(
    path,
    JSON.stringify({ clients: { pattern: 'client-{n}', count: 2, secret: 's3cret' }, scenarios: ping, ...profile }),
  );
  return path;
}

describe('every API call has an overall deadline and a named outcome', () => {
  it('a body trickling in at 1 byte/s ends as transport:timeout at the request timeout', async () => {
    const started = performance.now();
    expect(await outcomesAgainst(trickle, { requestTimeout: '700ms' })).toEqual({ 'transport:timeout': 3 });
    expect(performance.now() - started).toBeLessThan(6000); // not the 100 s the trickle would take
  });

  it('a 2 GB body is cut off as transport:body_too_large', async () => {
    expect(await outcomesAgainst(hugeBody, { maxResponseBytes: 1_000_000 })).toEqual({ 'transport:body_too_large': 3 });
  });

  it('garbage instead of HTTP is transport:invalid_http, a 200 KB header block transport:headers_too_large', async () => {
    expect(await outcomesAgainst(garbage)).toEqual({ 'transport:invalid_http': 3 });
    await server?.close();
    expect(await outcomesAgainst(hugeHeaders)).toEqual({ 'transport:headers_too_large': 3 });
  });
});

describe('the load ends at its duration plus a bounded drain', () => {
  it('an open phase ends at its duration whatever its rate (1e12/s once never ended)', async () => {
    const engine = { startArrival: () => undefined, recordUnsentAtPhaseEnd: () => undefined } as unknown as LoadEngine;
    const origin = performance.now();
    const now = (): number => performance.now() - origin;
    const run = runOpenPhase(engine, 0, createPacer(rateLoad(1e12), 300), 300, 0, now);
    await run.done;
    expect(now()).toBeLessThan(2000);
  });

  it('a long stall’s backlog is caught up at twice the rate, not as one burst; what is still owed at the phase’s end is skipped and counted', async () => {
    let sent = 0;
    let unsent = 0;
    const sentAtMs: number[] = [];
    let stalled = false;
    const engine = {
      startArrival: () => {
        sent++;
        sentAtMs.push(now());
        // The event loop blocked from 200 ms to 1 s of a 1.1 s phase — by the first arrival at
        // 200 ms, not a timer: on a busy machine a timer can fire too late to stall anything.
        if (!stalled && now() >= 200) {
          stalled = true;
          while (now() < 1000);
        }
      },
      recordUnsentAtPhaseEnd: (_phase: number, n: number) => void (unsent += n),
    } as unknown as LoadEngine;
    const origin = performance.now();
    const now = (): number => performance.now() - origin;
    const run = runOpenPhase(engine, 0, createPacer(rateLoad(1000), 1100), 1100, 0, now);
    await run.done;
    expect(stalled).toBe(true);
    expect(sent + unsent).toBe(1100); // 1000/s × 1.1 s: the schedule's count, whatever was sent
    // Not as one burst of ~800: at once only the last 250 ms at twice the rate (500), then 2 per
    // ms against 1 per ms falling due, so ~200 are still owed when the phase ends.
    expect(unsent).toBeGreaterThan(100);
    const wokeAtMs = sentAtMs.find((t) => t >= 1000)!;
    expect(sentAtMs.filter((t) => t >= wokeAtMs && t < wokeAtMs + 1).length).toBeLessThanOrEqual(560);
  });

  it('requests a stalled server never answers are sent, unanswered, seen by thresholds, and the summary says so', async () => {
    server = await startHostileApi(neverAnswer);
    const out = join(dir, 'stalled.json');
    const profile = await profileFile('stalled', {
      phases: [{ duration: '1s', rate: 4 }],
      thresholds: ['error_rate < 5%'],
    });
    const started = performance.now();
    const cli = await runRpcload(['run', profile, '--target', server.url, '--ui', 'none', '--out', out], {
      timeoutMs: 25_000,
    });
    const elapsedMs = performance.now() - started;
    expect(cli.code).toBe(1); // the threshold saw them
    expect(cli.stdout).toMatch(/the server stalled: 4 requests sent but never answered/);
    const result = await readResultFile(out);
    expect(result.run.status).toBe('completed');
    expect(result.summary.outcomes).toEqual({ 'transport:unanswered': 4 });
    expect(result.summary.skipped).toEqual({});
    expect(result.summary.durationS).toBeLessThan(1 + 5 + 1); // phase + drain (≤ 5 s) + slack
    expect(result.thresholds.map((t) => t.ok)).toEqual([false]);
    expect(apiRequests(server)).toBe(4);
    expect(elapsedMs).toBeLessThan(20_000);
  }, 30_000);
});

describe('a token endpoint that never finishes answering', () => {
  it('run: when it never answers, the run stops at --timeout with one line, exit 2', async () => {
    server = await startHostileApi(neverAnswer, neverAnswer);
    const profile = await profileFile('token', { phases: [{ duration: '1s', rate: 2 }] });
    const started = performance.now();
    const cli = await runRpcload(
      ['run', profile, '--target', server.url, '--ui', 'none', '--timeout', '1s', '--out', join(dir, 'x.json')],
      {
        timeoutMs: 20_000,
      },
    );
    expect(cli.code).toBe(2);
    expect(cli.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/no client could obtain a token .*transport:timeout/),
    ]);
    expect(performance.now() - started).toBeLessThan(15_000);
  }, 25_000);

  it('run: when its body trickles in, the token request ends at the request timeout', async () => {
    server = await startHostileApi(neverAnswer, trickle);
    const plan = testPlan(
      { scenarios: ping, phases: [{ duration: '1s', rate: 2 }], http: { requestTimeout: '700ms' } },
      server.url,
    );
    const started = performance.now();
    await expect(runPlan(plan, server.url)).rejects.toThrow(/no client could obtain a token .*transport:timeout/);
    expect(performance.now() - started).toBeLessThan(5000); // not the 100 s the trickle would take
  });

  it('verify: the start-up probe gives up at --timeout with one line, exit 2', async () => {
    server = await startHostileApi(neverAnswer, trickle);
    const cli = await runRpcload(
      [
        'verify',
        '--target',
        server.url,
        '--client',
        'a:s3cret',
        '--method',
        'ping',
        '--timeout',
        '1s',
        '--ui',
        'none',
        '--out',
        join(dir, 'v.json'),
      ],
      { timeoutMs: 20_000 },
    );
    expect(cli.code).toBe(2);
    expect(cli.stderr.trim().split('\n')).toEqual([expect.stringMatching(/cannot reach .*: timeout/)]);
  }, 25_000);
});

describe('loads this machine cannot honour are refused before anything starts', () => {
  const refusal = (profile: Record<string, unknown>, overrides: PlanOverrides = {}): string => {
    const started = performance.now();
    try {
      buildPlan(
        { clients: { pattern: 'c-{n}', count: 2, secret: 's' }, scenarios: ping, ...profile },
        {
          source: 'p.json',
          overrides,
        },
      );
    } catch (err) {
      expect(err).toBeInstanceOf(ProfileError);
      expect(performance.now() - started).toBeLessThan(2000); // 10,000,000 clients once took 74 s and 3 GB
      return (err as Error).message;
    }
    throw new Error('accepted');
  };

  it('refuses a rate, virtual users or a client count beyond what is feasible, saying both', () => {
    const phases = [{ duration: '3s', rate: 10 }];
    expect(refusal({ phases }, { load: rateLoad(1e12) })).toMatch(
      /^--rate: expected at most \d+ arrivals per second .*, found 1000000000000$/,
    );
    expect(refusal({ phases: [{ duration: '3s', concurrency: 1e8 }] })).toMatch(
      /^p\.json: \/phases\/0\/concurrency: expected at most \d+ virtual users .*, found 100000000$/,
    );
    expect(refusal({ phases, clients: { pattern: 'c-{n}', count: 10_000_000, secret: 's' } })).toMatch(
      /^p\.json: \/clients\/count: expected at most 100000 clients .*, found 10000000$/,
    );
  });

  it('run --rate 1e12 is one line and exit 2', async () => {
    const profile = await profileFile('fast', { target: 'http://127.0.0.1:9', phases: [{ duration: '3s', rate: 1 }] });
    const cli = await runRpcload(['run', profile, '--rate', '1e12', '--duration', '3s', '--ui', 'none'], {
      timeoutMs: 20_000,
    });
    expect(cli.code).toBe(2);
    expect(cli.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^rpcload: --rate: expected at most \d+ arrivals per second/),
    ]);
  });
});
