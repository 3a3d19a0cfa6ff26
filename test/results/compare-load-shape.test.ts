import { describe, expect, it } from 'vitest';
import { loadShapeDifferences } from '../../src/results/compare/load-shape.ts';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { makeResult } from '../support/result-fixtures.ts';

const base = makeResult({ seed: 1, durationS: 10 });
const variant = (change: (r: RunResult) => RunResult) => change(structuredClone(base));

describe('load shape', () => {
  it.each([
    // another seed, latency and error rate: same load shape
    ['a run of the same profile', makeResult({ seed: 2, durationS: 10, latencyMs: { median: 50, spread: 0.3 }, errorRate: 0.2 }), []],
    // server settings are not load shape: a slower server is what compare is for
    ['different server settings', variant((r) => ({ ...r, config: { ...r.config, embeddedServer: { addedLatencyMs: 50 } } })), []],
    // client identities do not matter, their number does
    ['renamed clients', makeResult({ seed: 1, durationS: 10, clientIds: Array.from({ length: 10 }, (_, i) => `other-${i}`) }), []],
    ['more clients', makeResult({ seed: 1, durationS: 10, clients: 12 }), ['config.clients.count: 10 vs 12']],
    // one client made greedy
    [
      'a greedy client',
      variant((r) => ({ ...r, config: { ...r.config, clients: (r.config.clients as { weight: number }[]).map((c, i) => (i === 0 ? { ...c, weight: 5 } : c)) } })),
      ['config.clients.weights[9]: "1" vs "5"'],
    ],
    // a phase duration
    ['a longer run', makeResult({ seed: 1, durationS: 20 }), ['config.phases[1].durationMs: 8000 vs 18000']],
    // the arrival rate
    ['a higher rate', makeResult({ seed: 1, durationS: 10, rps: 200 }), ['config.phases[0].load.fromPerS: 100 vs 200', 'config.phases[0].load.toPerS: 100 vs 200', 'config.phases[1].load.fromPerS: 100 vs 200', 'config.phases[1].load.toPerS: 100 vs 200']],
    // the scenario mix
    ['another mix', makeResult({ seed: 1, durationS: 10, methods: { ping: 1, 'items.list': 2, work: 1 } }), ['config.scenarios[0].weight: 3 vs 1']],
    // a verify run against a load run
    ['a verify run', variant((r) => ({ ...r, run: { ...r.run, kind: 'verify' } })), ['run.kind: "run" vs "verify"']],
    // the timing model
    ['a closed-model run', variant((r) => ({ ...r, run: { ...r.run, model: 'closed' } })), ['run.model: "open" vs "closed"']],
    // the 429 policy
    ['another 429 policy', variant((r) => ({ ...r, rateLimit: { ...r.rateLimit!, policy: 'ignore' } })), ['rateLimit.policy: "honour" vs "ignore"']],
  ])('%s', (_name, other, expected) => {
    expect(loadShapeDifferences(base, other)).toEqual(expected);
  });

  it('ignores clients altogether for shards', () => {
    expect(loadShapeDifferences(base, makeResult({ seed: 1, durationS: 10, clients: 3 }), { ignoreClients: true })).toEqual([]);
  });

  it('shows hostile config values without control characters', () => {
    const hostile = variant((r) => ({ ...r, config: { ...r.config, phases: [{ name: '\u001b]0;pwned\u0007x' }] } }));
    const [difference] = loadShapeDifferences(base, hostile);
    expect(difference).toMatch(/^config\.phases: 2 vs 1 entries$/);
    const renamed = variant((r) => ({ ...r, config: { ...r.config, phases: [{ name: '\u001b[31mred' }, {}] } }));
    // eslint-disable-next-line no-control-regex
    expect(loadShapeDifferences(base, renamed).join('\n')).not.toMatch(/\u001b(?!\\)/);
  });
});
