/**
 * `ratelimit.replicas`: once a client's quota is spent through one route (a replica, or the
 * target), every other route (the target, each other replica) refuses that client until the reset
 * the refusal announced — at once, and again later in the window — and their `Retry-After` values
 * announce the same reset within the 1 s rounding. A limiter that counts per replica fails with
 * the effective limit it gives a client.
 */
import type { CheckOutcome } from '../check.ts';
import type { RoundTrip } from '../round-trip.ts';
import { fail, pass, skip } from '../verdict.ts';
import { withPerReplicaReading } from './per-replica-hint.ts';
import { announcedResetMs, resetLowerBoundMs, tooSlowToJudge } from './window-bounds.ts';

/** One way to reach the API: the target, or a replica reached directly. */
export interface Route {
  /** `target`, `replica 1`, `replica 2`, … (replicas numbered in the order given). */
  readonly name: string;
  readonly url: string;
}

/** Requests of the client through one route until its first refusal (or failure, or the cap). */
export interface RouteRun {
  readonly route: Route;
  readonly roundTrips: readonly RoundTrip[];
  readonly stop: 'refused' | 'failed' | 'cap';
}

export interface RouteProbe extends RouteRun {
  /** `at once`: right after the quota was spent; `later`: midway to the announced reset. */
  readonly round: 'at once' | 'later';
}

export interface ReplicasObservation {
  readonly limit: number;
  readonly windowMs: number;
  readonly replicaCount: number;
  /** The quota spent through one route. */
  readonly spent: RouteRun;
  readonly probes: readonly RouteProbe[];
}

const ROUNDING_MS = 1000;
const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

/**
 * From when an admission through another route surely is before the reset of the spent quota: by
 * the refusal's Retry-After (the earliest the reset can be); without one, a window after the first
 * admission (a window that starts at the client's first request).
 */
export function spentResetFromMs(spent: RouteRun, windowMs: number): number | null {
  const refusal = spent.roundTrips.find((e) => e.admission === 'refused');
  const opener = spent.roundTrips.find((e) => e.admission === 'admitted');
  if (refusal === undefined) return null;
  if (refusal.retryAfterS !== null || opener === undefined) return resetLowerBoundMs(refusal);
  return opener.sentMs + windowMs;
}

const admitted = (roundTrips: readonly RoundTrip[]): number =>
  roundTrips.filter((e) => e.admission === 'admitted').length;

export function judgeReplicas(obs: ReplicasObservation): CheckOutcome {
  const { limit, windowMs, spent, probes } = obs;
  const spentAdmitted = admitted(spent.roundTrips);
  const refusal = spent.roundTrips.find((e) => e.admission === 'refused') ?? null;
  const resetFromMs = spentResetFromMs(spent, windowMs);
  const judged = (e: RoundTrip): boolean => resetFromMs !== null && e.sentMs < resetFromMs;
  const evidence: Record<string, unknown> = {
    limit,
    windowMs,
    replicas: obs.replicaCount,
    spent: {
      route: spent.route.name,
      url: spent.route.url,
      admitted: spentAdmitted,
      ...(refusal === null ? { stop: spent.stop } : { refusedAtMs: refusal.sentMs, retryAfterS: refusal.retryAfterS }),
      ...(resetFromMs === null ? {} : { resetNotBeforeMs: resetFromMs }),
    },
    probes: probes.map((p) => {
      const first = p.roundTrips[0];
      const refused = p.roundTrips.find((e) => e.admission === 'refused');
      return {
        route: p.route.name,
        url: p.route.url,
        round: p.round,
        ...(first === undefined ? {} : { firstSentAtMs: first.sentMs }),
        admitted: admitted(p.roundTrips.filter(judged)),
        ...(admitted(p.roundTrips.filter((e) => !judged(e))) > 0
          ? { admittedAfterPossibleReset: admitted(p.roundTrips.filter((e) => !judged(e))) }
          : {}),
        ...(refused === undefined
          ? { stop: p.stop }
          : { refusedAtMs: refused.sentMs, retryAfterS: refused.retryAfterS }),
      };
    }),
  };
  const failed = [spent, ...probes].flatMap((run) =>
    run.roundTrips.filter((e) => e.admission === 'failed').map((e) => ({ run, e })),
  )[0];
  if (failed !== undefined)
    return skip(
      'target_broken',
      `a request through ${failed.run.route.name} got no verdict from the limiter (${failed.e.outcome} at ${failed.e.sentMs} ms); cannot count admissions`,
      evidence,
    );
  if (spent.stop !== 'refused' || refusal === null || resetFromMs === null) {
    const slow = tooSlowToJudge(spent.roundTrips, limit, windowMs);
    return skip(
      'inconclusive',
      slow ??
        `no refusal after ${spentAdmitted} requests through ${spent.route.name}: no spent quota to compare (see ratelimit.threshold)`,
      evidence,
    );
  }
  const notes: string[] = [];
  if (refusal.retryAfterS === null)
    notes.push(
      `the refusal through ${spent.route.name} had no Retry-After: the reset was taken to be a window after the first admission`,
    );
  const late = probes.reduce((sum, p) => sum + admitted(p.roundTrips.filter((e) => !judged(e))), 0);
  if (late > 0)
    notes.push(`${late} admission(s) came after the earliest moment the announced reset can have happened: not judged`);
  if (!probes.some((p) => p.round === 'later'))
    notes.push('no second look later in the window: the announced reset was too close (a longer --window gives one)');

  const problems: string[] = [];
  const early = probes.filter((p) => admitted(p.roundTrips.filter(judged)) > 0);
  const effective = spentAdmitted + early.reduce((sum, p) => sum + admitted(p.roundTrips.filter(judged)), 0);
  const atLeast = early.some((p) => p.stop === 'cap') ? 'at least ' : '';
  const perWindow = `effective limit ${atLeast}${effective} per ${seconds(windowMs)} with ${obs.replicaCount} replica${obs.replicaCount === 1 ? '' : 's'}`;
  if (spentAdmitted > limit)
    problems.push(`${spent.route.name} admitted ${spentAdmitted} before its first refusal; the limit is ${limit}`);
  if (early.length > 0) {
    const [first, ...more] = early;
    const n = admitted(first!.roundTrips.filter(judged));
    const also =
      more.length > 0
        ? ` (and ${more.map((p) => `${p.route.name} ${admitted(p.roundTrips.filter(judged))} ${p.round === 'later' ? 'later' : ''}`.trim()).join(', ')})`
        : '';
    const what =
      first!.round === 'at once'
        ? `${first!.route.name} admitted ${n} more after ${spent.route.name} refused`
        : `${first!.route.name} refused at first, but admitted ${n} at ${seconds(first!.roundTrips.find((e) => e.admission === 'admitted')!.sentMs)}, before the reset ${spent.route.name} announced (not before ${seconds(resetFromMs)})`;
    problems.push(`${what}${also}: ${perWindow}`);
    evidence.effectiveLimit = effective;
  }
  const agreement = retryAfterAgreement(spent, probes, judged);
  evidence.retryAfter = agreement.evidence;
  if (agreement.problem !== null) problems.push(agreement.problem);
  if (problems.length > 0) {
    const detail =
      problems.length > 1 ? `${problems[0]!} (and ${problems.length - 1} more finding(s), see evidence)` : problems[0]!;
    return withPerReplicaReading(fail(detail, { ...evidence, problems }, notes), [spentAdmitted], limit);
  }
  const others = [...new Set(probes.map((p) => p.route.name))];
  const later = probes.find((p) => p.round === 'later');
  return pass(
    `after ${spent.route.name} refused (${spentAdmitted} admitted), ${others.join(' and ')} refused the same client at once${later ? ` and again ${seconds(later.roundTrips[0]!.sentMs - refusal.sentMs)} later` : ''}, before the announced reset${agreement.compared > 1 ? '; their Retry-After agree within the 1 s rounding' : ''}`,
    evidence,
    notes,
  );
}

/**
 * Do the refusals (before the reset) announce one reset? Each Retry-After, rounded up to whole
 * seconds, puts the reset in (send + RA − 1 s, receipt + RA]: they agree when those ranges share
 * a moment.
 */
function retryAfterAgreement(
  spent: RouteRun,
  probes: readonly RouteProbe[],
  judged: (e: RoundTrip) => boolean,
): { problem: string | null; compared: number; evidence: Record<string, unknown> } {
  const refusals = [spent, ...probes].flatMap((run) => {
    const refusal = run.roundTrips.find(
      (e) => e.admission === 'refused' && e.retryAfterS !== null && (run === spent || judged(e)),
    );
    return refusal === undefined ? [] : [{ route: run.route.name, refusal }];
  });
  const resets = refusals.map(({ route, refusal }) => ({
    route,
    atMs: announcedResetMs(refusal, 0),
    fromMs: refusal.sentMs + refusal.retryAfterS! * 1000 - ROUNDING_MS,
    toMs: announcedResetMs(refusal, 0),
  }));
  const evidence = { resetsAtMs: resets.map((r) => ({ route: r.route, atMs: Math.round(r.atMs) })) };
  if (resets.length < 2) return { problem: null, compared: resets.length, evidence };
  const latestFrom = resets.reduce((a, b) => (b.fromMs > a.fromMs ? b : a));
  const earliestTo = resets.reduce((a, b) => (b.toMs < a.toMs ? b : a));
  if (latestFrom.fromMs <= earliestTo.toMs)
    return { problem: null, compared: resets.length, evidence: { ...evidence, agree: true } };
  return {
    problem: `Retry-After disagrees across routes: ${earliestTo.route} announced the reset at ${seconds(earliestTo.atMs)}, ${latestFrom.route} at ${seconds(latestFrom.atMs)} — more than the 1 s rounding apart`,
    compared: resets.length,
    evidence: { ...evidence, agree: false },
  };
}
