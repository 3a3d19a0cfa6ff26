import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  capacityAnswer,
  searchEndOf,
  type Attempt,
  type SearchEnd,
} from '../../src/session/capacity/capacity-answer.ts';
import { bracketOf, nextStep, roundLoad, type SearchPoint } from '../../src/session/capacity/search.ts';

const pass = (load: number, kind: Attempt['kind'] = 'search'): Attempt => ({
  kind,
  load,
  verdict: 'pass',
  limit: null,
});
const fail = (load: number, kind: Attempt['kind'] = 'search', limit: Attempt['limit'] = 'latency'): Attempt => ({
  kind,
  load,
  verdict: 'fail',
  limit,
});
const bracketed = (
  lastPass: number | null,
  firstFail: number | null,
  limitedBy: SearchEnd['limitedBy'] = 'latency',
): SearchEnd => ({
  lastPass,
  firstFail,
  limitedBy,
  atLeast: false,
  why: null,
});
// The documented replay: speeds 1, 2 pass, 4 fails, bisected to [2, 2.1]; the 15 s confirmation fails at 2, 1.9 and 1.8.
const SEARCH = [
  pass(1),
  pass(2),
  fail(4, 'search', 'throughput'),
  fail(3),
  fail(2.5),
  fail(2.3),
  fail(2.2),
  fail(2.1, 'search', 'throughput'),
];

describe('the capacity answer and its bracket', () => {
  it.each<[string, SearchEnd, Attempt[], Attempt[], Partial<ReturnType<typeof capacityAnswer>>]>([
    [
      'no confirmation: the search’s last pass',
      bracketed(2, 2.1),
      SEARCH,
      [],
      { answer: 2, bracket: [2, 2.1], limitedBy: 'latency' },
    ],
    [
      'confirmed at once',
      bracketed(2, 2.1),
      SEARCH,
      [pass(2, 'confirm')],
      { answer: 2, bracket: [2, 2.1], confirmed: true, limitedBy: 'latency' },
    ],
    [
      'confirmed after stepping down: the failed confirmation is the bracket’s top',
      bracketed(2, 2.1),
      SEARCH,
      [fail(2, 'confirm', 'errors'), pass(1.9, 'confirm')],
      { answer: 1.9, bracket: [1.9, 2], confirmed: true, limitedBy: 'errors' },
    ],
    [
      'confirmation failed every time: the highest search pass below the lowest failure, never a load that failed',
      bracketed(2, 2.1),
      SEARCH,
      [fail(2, 'confirm', 'client quota'), fail(1.9, 'confirm', 'client quota'), fail(1.8, 'confirm', 'client quota')],
      { answer: 1, bracket: [1, 1.8], confirmed: false, limitedBy: 'client quota', atLeast: true },
    ],
    [
      'confirmation failed and nothing below passed: no answer',
      bracketed(2, 2.1),
      [pass(2), fail(2.1)],
      [fail(2, 'confirm'), fail(1.9, 'confirm'), fail(1.8, 'confirm')],
      { answer: null, bracket: [null, 1.8] },
    ],
    [
      'a ceiling reached and confirmed stays "at least"',
      { ...bracketed(216, null, 'client quota'), atLeast: true, why: 'capacity bound by client quotas: …' },
      [pass(20), pass(40), pass(80), pass(160), pass(216)],
      [pass(216, 'confirm')],
      { answer: 216, bracket: [216, null], atLeast: true, why: 'capacity bound by client quotas: …' },
    ],
    [
      'a ceiling whose confirmation failed is no longer "at least", nor the ceiling’s reason',
      { ...bracketed(216, null, 'max'), atLeast: true, why: 'the search’s max (216/s) was reached' },
      [pass(160), pass(216)],
      [fail(216, 'confirm'), pass(205.2, 'confirm')],
      { answer: 205.2, bracket: [205.2, 216], atLeast: false, why: null, limitedBy: 'latency' },
    ],
    [
      'a search limited by the clients’ quotas is "at least" its answer',
      bracketed(1.4, 1.5, 'client quota'),
      [pass(1), fail(2, 'search', 'client quota'), pass(1.4), fail(1.5, 'search', 'client quota')],
      [],
      { answer: 1.4, bracket: [1.4, 1.5], atLeast: true },
    ],
    [
      'generator-bound confirmations say nothing about the server',
      bracketed(2, 2.1),
      SEARCH,
      [{ kind: 'confirm', load: 2, verdict: 'generator-bound', limit: 'generator' }],
      { answer: 2, bracket: [2, 2.1], confirmed: false },
    ],
  ])('%s', (_, end, search, confirmations, expected) => {
    const answer = capacityAnswer(end, search, confirmations);
    expect(answer).toMatchObject(expected);
    expect(answer.answer).toBe(answer.bracket[0]);
  });

  it('names the confirmation that brought the top down as the decisive attempt', () => {
    const answer = capacityAnswer(bracketed(2, 2.1), SEARCH, [
      fail(2, 'confirm', 'errors'),
      fail(1.9, 'confirm', 'latency'),
    ]);
    expect(answer.decisive).toEqual(fail(1.9, 'confirm', 'latency'));
    expect(capacityAnswer(bracketed(2, 2.1), SEARCH, []).decisive).toEqual(fail(2.1, 'search', 'throughput'));
  });
});

describe('the capacity answer (property)', () => {
  const TOLERANCE = 0.05;
  it('is never outside its bracket: every load that failed lies above it, and it passed', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.5, max: 50, noNaN: true }),
        fc.double({ min: 0.5, max: 50, noNaN: true }),
        fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
        fc.boolean(),
        (knee, confirmKnee, noise, withCeiling) => {
          // The search's oracle is noisy (a stall fails a step that should pass, now and then);
          // the longer confirmation has a knee of its own.
          let draws = 0;
          const passes = (load: number): boolean =>
            load <= knee && noise[draws++ % noise.length]! !== load > knee * 0.9;
          const settings = { start: 1, factor: 2, tolerance: TOLERANCE, maxSteps: 30, integer: false };
          const ceiling = withCeiling ? { value: knee * 1.5, reason: 'max' as const } : null;
          const points: SearchPoint[] = [];
          const search: Attempt[] = [];
          for (;;) {
            const next = nextStep(settings, points, ceiling);
            if (next.kind === 'done') break;
            const ok = passes(next.load);
            points.push({ load: next.load, pass: ok });
            search.push(ok ? pass(next.load) : fail(next.load));
          }
          const { lastPass, firstFail } = bracketOf(points);
          const end: SearchEnd = { lastPass, firstFail, limitedBy: 'latency', atLeast: firstFail === null, why: null };
          // The session's confirmation: from the last pass, one tolerance lower after each failure, three attempts.
          const confirmations: Attempt[] = [];
          for (let load = lastPass, attempt = 0; load !== null && attempt < 3; attempt++) {
            const ok = load <= confirmKnee;
            confirmations.push(ok ? pass(load, 'confirm') : fail(load, 'confirm'));
            if (ok) break;
            load = roundLoad(load * (1 - TOLERANCE), false);
          }
          const answer = capacityAnswer(end, search, confirmations);
          const [low, high] = answer.bracket;
          expect(answer.answer).toBe(low);
          const failed = [...search, ...confirmations].filter((a) => a.verdict === 'fail').map((a) => a.load);
          if (answer.answer !== null) {
            expect(failed.every((load) => load > answer.answer!)).toBe(true);
            expect([...search, ...confirmations].some((a) => a.verdict === 'pass' && a.load === answer.answer)).toBe(
              true,
            );
            if (high !== null) expect(answer.answer).toBeLessThan(high);
          }
          if (failed.length > 0)
            expect(high).toBe(Math.min(...failed.filter((load) => answer.answer === null || load > answer.answer)));
        },
      ),
    );
  });
});

describe('how the search ended', () => {
  const bound = {
    clients: 4,
    perClientPerS: 10,
    requestsPerIteration: 1,
    nominalPerS: 40,
    searchablePerS: 36,
    skew: 1,
  };
  const done = (
    reason: 'bracketed' | 'ceiling' | 'nothing passed' | 'max steps',
    lastPass: number | null,
    firstFail: number | null,
  ) => ({ kind: 'done', reason, lastPass, firstFail }) as const;
  const show = (n: number): string => `${n}/s`;
  it.each<[string, Parameters<typeof searchEndOf>, Partial<SearchEnd>]>([
    [
      'bracketed: limited by what failed at the first fail',
      [done('bracketed', 300, 310), null, null, 'latency', 30, show],
      { limitedBy: 'latency', atLeast: false, why: null },
    ],
    [
      'at the quota bound: "at least", with the quota arithmetic',
      [done('ceiling', 36, null), { value: 36, reason: 'client quota' }, bound, null, 30, show],
      {
        limitedBy: 'client quota',
        atLeast: true,
        why: expect.stringMatching(/^capacity bound by client quotas: 4 clients × 10\/s = 40\/s/) as string,
      },
    ],
    [
      'at the configured max',
      [done('ceiling', 500, null), { value: 500, reason: 'max' }, null, null, 30, show],
      { limitedBy: 'max', atLeast: true, why: "the search's max (500/s) was reached" },
    ],
    [
      'out of steps with nothing failed',
      [done('max steps', 640, null), null, null, null, 6, show],
      { limitedBy: 'max', atLeast: true, why: 'the search stopped after 6 steps' },
    ],
    [
      'nothing passed',
      [done('nothing passed', null, 0.1), null, null, 'errors', 30, show],
      { limitedBy: 'errors', lastPass: null, firstFail: 0.1 },
    ],
  ])('%s', (_, args, expected) => {
    expect(searchEndOf(...args)).toMatchObject(expected);
  });
});
