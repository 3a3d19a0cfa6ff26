/**
 * The `ratelimit.restart` check's procedure: a rested client's quota spent, the fault and heal
 * hooks run back to back as a restart, then the client sends one request every tenth of a window
 * (a burst while admitted, to count them) until the reset its refusal announced.
 */
import { sendUntilRefused } from '../bursts.ts';
import type { CheckDefinition } from '../check.ts';
import type { RoundTrip } from '../round-trip.ts';
import { healPollMs, hookCheckPlan, runHook } from '../hooks.ts';
import { hookProblem, type HookRun } from '../verdicts/hook-runs.ts';
import { judgeRestart, restartResetFromMs } from '../verdicts/ratelimit-restart.ts';
import { outageAnswerOf } from '../verdicts/ratelimit-store-outage.ts';
import { burstCap } from './ratelimit-threshold.ts';

export const ratelimitRestart: CheckDefinition = {
  id: 'ratelimit.restart',
  plan: hookCheckPlan,
  async run(check, [clientId]) {
    const { limit, windowMs, methods } = check.config;
    const hooks = check.config.hooks!;
    const method = methods[0]!;
    const spent = await sendUntilRefused(check, clientId!, burstCap(limit), () => method);
    const observation = {
      limit,
      windowMs,
      hookTimeoutMs: hooks.timeoutMs,
      spent: spent.roundTrips,
      spentStop: spent.stop,
    };
    const resetFromMs = restartResetFromMs(spent.roundTrips, windowMs);
    if (spent.stop !== 'refused' || resetFromMs === null)
      return judgeRestart({ ...observation, fault: null, heal: null, after: [] });
    let fault: HookRun | null = null;
    let heal: HookRun | null = null;
    try {
      fault = await runHook(check, 'fault', hooks.fault, hooks.timeoutMs);
    } finally {
      heal = await runHook(check, 'heal', hooks.heal, hooks.timeoutMs);
    }
    const after: RoundTrip[] = [];
    if (hookProblem(fault, hooks.timeoutMs) === null && hookProblem(heal, hooks.timeoutMs) === null) {
      const pollMs = healPollMs(windowMs);
      let admitted = 0;
      while (check.elapsed() < resetFromMs) {
        const { roundTrip } = await check.call({ method, clientId: clientId! });
        after.push(roundTrip);
        // Admitted: keep sending, to count what a fresh budget hands out; else wait for the next poll.
        if (outageAnswerOf(roundTrip) === 'admitted' && ++admitted < burstCap(limit)) continue;
        await check.until(Math.min(resetFromMs, check.elapsed() + pollMs));
      }
    }
    return judgeRestart({ ...observation, fault, heal, after });
  },
};
