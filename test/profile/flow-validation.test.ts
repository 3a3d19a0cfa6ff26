import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolvePlan } from '../../src/profile/build-plan.ts';
import { parseDataPath } from '../../src/profile/resolve-flows.ts';
import { useTempDir } from '../support/temp-dir.ts';

const dir = useTempDir('rpcload-flow-validate-');
const source = join(dir, 'p.json');
writeFileSync(join(dir, 'users.csv'), 'id,email\n1,a@example.com\n');

const phases = [{ duration: '1s', rate: 1 }];
const problemsOf = (profile: Record<string, unknown>) =>
  resolvePlan({ phases, ...profile }, { source }).problems.map((p) => `${p.path}: ${p.message}`);

describe('flow validation', () => {
  it.each<[string, Record<string, unknown>, string]>([
    [
      // a variable saved under another spelling: named with the saved names
      'an unknown variable',
      {
        scenarios: [
          {
            steps: [
              { method: 'orders.create', save: { orderId: 'id' } },
              { method: 'ping' },
              { method: 'orders.get', args: { id: '{{vars.orderID}}' } },
            ],
          },
        ],
      },
      '/scenarios/0/steps/2/args/id: {{vars.orderID}} is never saved before this step; saved: orderId',
    ],
    [
      // a step cannot read what it saves itself
      'a variable saved by the same step',
      { scenarios: [{ steps: [{ method: 'orders.create', args: { x: 'a {{vars.id}}' }, save: { id: 'id' } }] }] },
      '/scenarios/0/steps/0/args/x: {{vars.id}} is never saved before this step; saved: none',
    ],
    [
      // variables live per scenario
      'a variable of another scenario',
      {
        scenarios: [
          { steps: [{ method: 'orders.create', save: { id: 'id' } }] },
          { steps: [{ method: 'orders.get', args: { id: '{{vars.id}}' } }] },
        ],
      },
      '/scenarios/1/steps/0/args/id: {{vars.id}} is never saved before this step; saved: none',
    ],
    [
      'a save path that is not one',
      { scenarios: [{ steps: [{ method: 'orders.create', save: { id: 'items[x]' } }] }] },
      '/scenarios/0/steps/0/save/id: expected a path into the reply\'s data like "id" or "items[0].sku", found "items[x]"',
    ],
    [
      'a data set that is not declared',
      { scenarios: [{ steps: [{ method: 'ping', args: { e: '{{data.users.email}}' } }] }] },
      '/scenarios/0/steps/0/args/e: {{data.users.email}} names no data set of the profile\'s "data" section; declared: none',
    ],
    [
      'a data file that is not there',
      {
        data: { users: { file: 'nope.csv' } },
        scenarios: [{ steps: [{ method: 'ping', args: { e: '{{data.users.email}}' } }] }],
      },
      `/data/users/file: expected a readable file (${join(dir, 'nope.csv')}: no such file), found "nope.csv"`,
    ],
    [
      'unique order that wraps',
      {
        data: { users: { file: 'users.csv', order: 'unique', onEnd: 'wrap' } },
        scenarios: [{ steps: [{ method: 'ping', args: { e: '{{data.users.email}}' } }] }],
      },
      '/data/users/onEnd: expected "stop" with order "unique" (wrapping would use rows again), found "wrap"',
    ],
    [
      'a save beside an expected error',
      { scenarios: [{ steps: [{ method: 'orders.get', expect: { error: 'not_found' }, save: { id: 'id' } }] }] },
      '/scenarios/0/steps/0/save: expected no save beside an expected error (an error reply has no data to save from)',
    ],
    [
      'a uniform think time upside down',
      { scenarios: [{ steps: [{ method: 'ping', think: { uniform: ['500ms', '100ms'] } }] }] },
      '/scenarios/0/steps/0/think/uniform: expected a shortest pause no longer than the longest, found ["500ms","100ms"]',
    ],
  ])('%s', (_name, profile, problem) => {
    expect(problemsOf(profile)).toEqual([problem]);
  });

  it('resolves a valid flow with data, think distributions and Poisson arrivals', () => {
    const { plan, problems } = resolvePlan(
      {
        data: { users: { file: 'users.csv', order: 'unique' } },
        scenarios: [
          {
            steps: [
              {
                method: 'orders.create',
                args: { by: '{{data.users.email}}' },
                save: { id: 'id' },
                think: { exponential: '200ms' },
              },
              {
                method: 'orders.get',
                args: { id: '{{vars.id}}' },
                expect: { data: { state: 'open' } },
                onFail: 'continue',
              },
            ],
          },
        ],
        phases: [{ duration: '1s', rate: 5, arrivals: 'poisson' }],
      },
      { source },
    );
    expect(problems).toEqual([]);
    expect(plan!.data).toEqual([
      {
        name: 'users',
        file: join(dir, 'users.csv'),
        format: 'csv',
        order: 'unique',
        onEnd: 'stop',
        columns: ['email'],
      },
    ]);
    expect(plan!.scenarios[0]!.steps[0]!.think).toEqual({ kind: 'exponential', meanMs: 200 });
    expect(plan!.scenarios[0]!.steps[1]!.expect).toEqual({ status: 'success', error: null, data: { state: 'open' } });
    expect(plan!.phases[0]!.arrivals).toBe('poisson');
  });

  it.each<[string, (string | number)[] | null]>([
    ['id', ['id']],
    ['items[0].sku', ['items', 0, 'sku']],
    ['a.b[2][3]', ['a', 'b', 2, 3]],
    ['a..b', null],
    ['[0]', null],
    ['a[-1]', null],
  ])('parses the save path %s', (text, segments) => {
    expect(parseDataPath(text)).toEqual(segments);
  });
});
