import { describe, expect, it } from 'vitest';
import { expectationFailure, judgeFlow, readPath, subsetMismatch, thinkTimeMs } from '../../src/driver/flow.ts';
import { newRequestOutcome } from '../../src/driver/request-outcome.ts';
import type { ExpectPlan, StepPlan } from '../../src/profile/plan.ts';

const expectOf = (e: Partial<ExpectPlan>): ExpectPlan => ({ status: null, error: null, data: null, ...e });

describe('readPath', () => {
  it.each<[unknown, (string | number)[], unknown]>([
    [{ id: 'a' }, ['id'], 'a'],
    [{ items: [{ sku: 'x' }] }, ['items', 0, 'sku'], 'x'],
    [{ items: [] }, ['items', 0], undefined], // past the end
    [{ id: 0 }, ['id'], 0], // falsy values are values
    [{ id: null }, ['id'], null],
    [{}, ['constructor'], undefined], // never an inherited property
    [{ a: 'text' }, ['a', 'length'], undefined], // no properties of strings
    [[1], [0], 1],
  ])('%j at %j → %j', (data, segments, value) => {
    expect(readPath(data, segments)).toEqual(value);
  });
});

describe('expectations', () => {
  it.each<[string, ExpectPlan, string, Record<string, unknown> | null, string | null]>([
    ['success expected, success', expectOf({ status: 'success' }), 'success', {}, null],
    ['success expected, an error', expectOf({ status: 'success' }), 'error:not_found', null, 'expect:status'],
    ['an error expected, success', expectOf({ status: 'error' }), 'success', {}, 'expect:status'],
    ['not_found expected and met', expectOf({ status: 'error', error: 'not_found' }), 'error:not_found', null, null],
    [
      'not_found expected, another code',
      expectOf({ status: 'error', error: 'not_found' }),
      'error:forbidden',
      null,
      'expect:error',
    ],
    [
      'a data subset met',
      expectOf({ status: 'success', data: { state: 'open' } }),
      'success',
      { state: 'open', id: 1 },
      null,
    ],
    [
      'a data subset missed',
      expectOf({ status: 'success', data: { state: 'open' } }),
      'success',
      { state: 'closed' },
      'expect:data.state',
    ],
    [
      'a nested subset missed',
      expectOf({ data: { items: [{ sku: 'a' }] } }),
      'success',
      { items: [{ sku: 'b' }] },
      'expect:data.items[0].sku',
    ],
  ])('%s', (_name, expect_, outcome, data, failure) => {
    expect(expectationFailure(expect_, outcome, data)).toBe(failure);
  });

  it('compares subsets by key, position and value', () => {
    expect(subsetMismatch({ a: [1, { b: 2 }] }, { a: [1, { b: 2, c: 3 }, 9] }, 'data')).toBeNull();
    expect(subsetMismatch({ a: 1 }, { a: '1' }, 'data')).toBe('data.a');
    expect(subsetMismatch({ a: {} }, { a: [] }, 'data')).toBe('data.a');
  });
});

describe('judgeFlow', () => {
  const step = (p: Partial<StepPlan>): StepPlan => ({
    method: 'orders.get',
    body: { source: {}, variability: 'static' },
    paginate: null,
    think: { kind: 'fixed', ms: 0 },
    save: [],
    expect: null,
    onFail: 'stop',
    tags: {},
    ...p,
  });
  const judged = (
    s: StepPlan,
    outcome: string,
    data: Record<string, unknown> | null,
    vars: Record<string, unknown> = {},
  ) => {
    const o = newRequestOutcome();
    o.outcome = outcome;
    o.successData = data;
    return { goOn: judgeFlow(s, o, vars), outcome: o.outcome, vars };
  };

  it.each<
    [
      string,
      StepPlan,
      string,
      Record<string, unknown> | null,
      { goOn: boolean; outcome: string; vars: Record<string, unknown> },
    ]
  >([
    ['a plain success goes on', step({}), 'success', {}, { goOn: true, outcome: 'success', vars: {} }],
    ['a plain failure ends it', step({}), 'error:x', null, { goOn: false, outcome: 'error:x', vars: {} }],
    [
      'a save keeps the value',
      step({ save: [{ name: 'id', path: 'id', segments: ['id'] }] }),
      'success',
      { id: 'o-1' },
      { goOn: true, outcome: 'success', vars: { id: 'o-1' } },
    ],
    [
      'a missing save path ends it as flow:missing_value',
      step({ save: [{ name: 'id', path: 'id', segments: ['id'] }] }),
      'success',
      {},
      { goOn: false, outcome: 'flow:missing_value', vars: {} },
    ],
    [
      'a failed expectation with onFail stop',
      step({ expect: expectOf({ status: 'success' }) }),
      'error:not_found',
      null,
      { goOn: false, outcome: 'expect:status', vars: {} },
    ],
    [
      'a failed expectation with onFail continue',
      step({ expect: expectOf({ status: 'success' }), onFail: 'continue' }),
      'error:not_found',
      null,
      { goOn: true, outcome: 'expect:status', vars: {} },
    ],
    [
      'an expected error goes on, keeping its outcome',
      step({ expect: expectOf({ status: 'error', error: 'not_found' }) }),
      'error:not_found',
      null,
      { goOn: true, outcome: 'error:not_found', vars: {} },
    ],
    [
      'a 429 stays a 429 (and ends it)',
      step({ expect: expectOf({ status: 'success' }), onFail: 'continue' }),
      'error:rate_limit_exceeded',
      null,
      { goOn: false, outcome: 'error:rate_limit_exceeded', vars: {} },
    ],
    [
      'a transport failure stays what it was',
      step({ expect: expectOf({ status: 'success' }), onFail: 'continue' }),
      'transport:ECONNRESET',
      null,
      { goOn: false, outcome: 'transport:ECONNRESET', vars: {} },
    ],
  ])('%s', (_name, s, outcome, data, expected) => {
    expect(judged(s, outcome, data)).toEqual(expected);
  });
});

describe('thinkTimeMs', () => {
  it('draws fixed, uniform and exponential pauses', () => {
    expect(thinkTimeMs({ kind: 'fixed', ms: 25 }, () => 0.3)).toBe(25);
    expect(thinkTimeMs({ kind: 'uniform', minMs: 100, maxMs: 500 }, () => 0.25)).toBe(200);
    expect(thinkTimeMs({ kind: 'exponential', meanMs: 200 }, () => 0)).toBe(0);
    let x = 0;
    const random = () => ((x = (x + 0.6180339887) % 1), x);
    const draws = Array.from({ length: 20_000 }, () => thinkTimeMs({ kind: 'exponential', meanMs: 200 }, random));
    const mean = draws.reduce((a, b) => a + b, 0) / draws.length;
    expect(mean).toBeGreaterThan(195);
    expect(mean).toBeLessThan(205);
    const uniform = Array.from({ length: 1000 }, () =>
      thinkTimeMs({ kind: 'uniform', minMs: 100, maxMs: 500 }, random),
    );
    expect(Math.min(...uniform)).toBeGreaterThanOrEqual(100);
    expect(Math.max(...uniform)).toBeLessThan(500);
  });
});
