import { describe, expect, it } from 'vitest';
import { ClientIdentity } from '../../src/driver/client-identity.ts';
import { compilePlan } from '../../src/driver/compiled-plan.ts';
import { newIteration, RequestBodies, walkOn, type Iteration } from '../../src/driver/iteration.ts';
import { testPlan } from '../support/load-run.ts';

/** A walk of up to 3 pages of items.list, then a ping after 25 ms of think time. */
const plan = testPlan(
  {
    scenarios: [
      {
        name: 'walk',
        steps: [
          { method: 'items.list', args: { q: 'x' }, paginate: { maxPages: 3 }, think: '25ms' },
          { method: 'ping', args: { who: '{{client.id}}', n: '{{iteration}}' } },
        ],
      },
    ],
    phases: [{ duration: '1s', rate: 1 }],
  },
  'http://127.0.0.1:9',
);
const scenario = compilePlan(plan, ['']).scenarios[0]!;
const client = new ClientIdentity(0, 'client-1', 'secret', 1);

/** An iteration at `stepIndex`, on page `page`. */
function at(stepIndex: number, page = 0): Iteration {
  const it = newIteration(scenario, client, 0, 'open', 7, null);
  it.stepIndex = stepIndex;
  it.page = page;
  return it;
}

describe('walkOn', () => {
  it.each<
    [
      string,
      Iteration,
      Record<string, unknown> | null,
      number | null,
      { stepIndex: number; page: number; cursor: string | null },
    ]
  >([
    // a failed request ends the iteration where it is
    ['a failure', at(0), null, null, { stepIndex: 0, page: 0, cursor: null }],
    // a page with a cursor: the next page, at once
    ['a page with a cursor', at(0), { items: [1], next: 'c2' }, 0, { stepIndex: 0, page: 1, cursor: 'c2' }],
    // the last page (next null): the next step after the step's think time
    ['the last page', at(0, 1), { items: [], next: null }, 25, { stepIndex: 1, page: 0, cursor: null }],
    // maxPages reached, a cursor or not: the next step
    ['maxPages reached', at(0, 2), { items: [1], next: 'c4' }, 25, { stepIndex: 1, page: 0, cursor: null }],
    // a cursor that breaks the conventions ends the walk of that step
    ['an empty-string cursor', at(0), { items: [1], next: '' }, 25, { stepIndex: 1, page: 0, cursor: null }],
    // the last step's success ends the iteration
    ['the last step', at(1), { pong: true }, null, { stepIndex: 2, page: 0, cursor: null }],
  ])('%s', (_name, it, data, waitMs, position) => {
    expect(walkOn(it, data)).toBe(waitMs);
    expect({ stepIndex: it.stepIndex, page: it.page, cursor: it.cursor }).toEqual(position);
  });
});

describe('RequestBodies', () => {
  it('renders a step’s first page from its template, and later pages as the same bytes plus the cursor', () => {
    const bodies = new RequestBodies(() => 0.5);
    const it = at(0);
    expect(bodies.next(it)!.toString()).toBe('{"q":"x"}');
    expect(walkOn(it, { items: [1], next: 'c2' })).toBe(0);
    expect(bodies.next(it)!.toString()).toBe('{"q":"x","next":"c2"}');
    expect(walkOn(it, { items: [], next: null })).toBe(25);
    expect(bodies.next(it)!.toString()).toBe('{"who":"client-1","n":7}');
  });
});
