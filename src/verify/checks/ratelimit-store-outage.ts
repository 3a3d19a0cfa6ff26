/**
 * The `ratelimit.store_outage` check's procedure: half of a rested client's budget spent, the
 * fault hook run, load at twice the contract rate for one window, the heal hook run (always, also
 * when the check is stopped: the target must not stay broken), then requests, a tenth of a window
 * apart, until it answers other than 5xx (or the hook deadline passes): the checks after this one
 * (ratelimit.restart) need a target that has recovered — a client library reconnects to a store
 * that is back only on its own schedule.
 */
import { pacedLoad, sendUntilRefused } from '../bursts.ts';
import type { CheckDefinition } from '../check.ts';
import type { RoundTrip } from '../round-trip.ts';
import { healPollMs, hookCheckPlan, runHook } from '../hooks.ts';
import type { HookRun } from '../verdicts/hook-runs.ts';
import { hookProblem } from '../verdicts/hook-runs.ts';
import { judgeStoreOutage, outageAnswerOf } from '../verdicts/ratelimit-store-outage.ts';

export const ratelimitStoreOutage: CheckDefinition = {
  id: 'ratelimit.store_outage',
  plan: hookCheckPlan,
  async run(check, [clientId]) {
    const { limit, windowMs, methods } = check.config;
    const hooks = check.config.hooks!;
    const method = methods[0]!;
    const spent = await sendUntilRefused(check, clientId!, Math.floor(limit / 2), () => method);
    const observation = {
      limit,
      windowMs,
      hookTimeoutMs: hooks.timeoutMs,
      declared: hooks.outagePolicy,
      spent: spent.roundTrips,
    };
    if (spent.stop !== 'cap')
      return judgeStoreOutage({ ...observation, fault: null, outage: [], heal: null, afterHeal: null });
    let fault: HookRun | null = null;
    let outage: RoundTrip[] = [];
    let heal: HookRun | null = null;
    try {
      fault = await runHook(check, 'fault', hooks.fault, hooks.timeoutMs);
      if (hookProblem(fault, hooks.timeoutMs) === null)
        outage = await pacedLoad(check, clientId!, method, windowMs / (2 * limit), check.elapsed() + windowMs);
    } finally {
      heal = await runHook(check, 'heal', hooks.heal, hooks.timeoutMs);
    }
    let afterHeal = (await check.call({ method, clientId: clientId! })).roundTrip;
    if (hookProblem(heal, hooks.timeoutMs) === null) {
      const giveUpAtMs = check.elapsed() + hooks.timeoutMs;
      const pollMs = healPollMs(windowMs);
      while (outageAnswerOf(afterHeal) === 'unavailable' && check.elapsed() + pollMs < giveUpAtMs) {
        await check.until(check.elapsed() + pollMs);
        afterHeal = (await check.call({ method, clientId: clientId! })).roundTrip;
      }
    }
    return judgeStoreOutage({ ...observation, fault, outage, heal, afterHeal });
  },
};
