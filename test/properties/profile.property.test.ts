/**
 * Properties of profile loading: every generated valid profile resolves into a plan; every broken
 * one — a field replaced by any JSON value, or the file text cut or garbled — is refused as
 * RpcloadErrors with one line per problem (`file: /json/pointer: …`), never another kind of throw.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RpcloadError } from '../../src/errors.ts';
import { resolvePlan } from '../../src/profile/build-plan.ts';
import { loadProfile } from '../../src/profile/load-profile.ts';
import { formatProblem } from '../../src/profile/problems.ts';
import { useTempDir } from '../support/temp-dir.ts';

const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,11}$/);
const duration = fc
  .tuple(fc.integer({ min: 1, max: 600 }), fc.constantFrom('ms', 's', 'm'))
  .map(([n, unit]) => `${n}${unit}`);
const method = fc.constantFrom('ping', 'echo', 'items.list', 'work');

const validProfile = fc.record({
  name,
  clients: fc.record({ pattern: fc.constant('client-{n}'), count: fc.integer({ min: 1, max: 50 }) }),
  scenarios: fc.uniqueArray(
    fc.record({
      name,
      weight: fc.integer({ min: 1, max: 10 }),
      steps: fc.array(fc.record({ method }), { minLength: 1, maxLength: 3 }),
    }),
    { minLength: 1, maxLength: 4, selector: (s) => s.name },
  ),
  phases: fc.uniqueArray(
    fc.oneof(
      fc.record({ name, duration, rate: fc.integer({ min: 1, max: 500 }) }),
      fc.record({ name, duration, concurrency: fc.integer({ min: 1, max: 50 }) }),
    ),
    { minLength: 1, maxLength: 3, selector: (p) => p.name },
  ),
  rateLimit: fc.record({ limit: fc.integer({ min: 1, max: 1000 }), window: duration }),
});

/** Every path into a JSON value (as key lists), the root excluded. */
function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return [];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return entries.flatMap(([key, child]) => [[...prefix, key], ...pathsOf(child, [...prefix, key])]);
}

function replaceAt(value: unknown, path: readonly (string | number)[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  const copy = (Array.isArray(value) ? [...(value as unknown[])] : { ...(value as Record<string, unknown>) }) as Record<
    string | number,
    unknown
  >;
  copy[head!] = replaceAt(copy[head!], rest, replacement);
  return copy;
}

function expectOneLinePerProblem(err: unknown, file: string): void {
  expect(err).toBeInstanceOf(RpcloadError);
  for (const line of (err as RpcloadError).message.split('\n'))
    expect(line.startsWith(`${file}: `) || line.startsWith('--')).toBe(true);
}

describe('profiles (property)', () => {
  it('every generated valid profile resolves into a plan', () => {
    fc.assert(
      fc.property(validProfile, (profile) => {
        const { plan, problems } = resolvePlan(profile, { source: 'gen.json' });
        expect(problems).toEqual([]);
        expect(plan?.phases).toHaveLength(profile.phases.length);
      }),
    );
  });

  it('a field replaced by any JSON value: a plan, or problems of one line each with a JSON pointer — never a throw', () => {
    fc.assert(
      fc.property(
        validProfile.chain((profile) =>
          fc.tuple(fc.constant(profile), fc.constantFrom(...pathsOf(profile)), fc.jsonValue({ maxDepth: 3 })),
        ),
        ([profile, path, replacement]) => {
          const broken = replaceAt(profile, path, replacement);
          const { plan, problems } = resolvePlan(broken, { source: 'gen.json' });
          expect(plan === undefined).toBe(problems.length > 0);
          for (const problem of problems) {
            expect(problem.path).toMatch(/^(\/|$|--)/);
            expect(formatProblem('gen.json', problem)).not.toMatch(/[\r\n]/);
          }
        },
      ),
    );
  });

  it('a file cut short or garbled: refused as RpcloadErrors, one line per problem', async () => {
    const dir = useTempDir('rpcload-profile-prop-');
    const file = join(dir, 'p.json');
    await fc.assert(
      fc.asyncProperty(validProfile, fc.nat(), fc.string({ maxLength: 5 }), async (profile, at, garbage) => {
        const text = JSON.stringify(profile);
        const cut = at % text.length;
        writeFileSync(file, `${text.slice(0, cut)}${garbage}${text.slice(cut + 1)}`);
        try {
          await loadProfile(file, {});
        } catch (err) {
          expectOneLinePerProblem(err, file);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('a field nested deeper than 64 levels: one line naming where, before any recursive walk', async () => {
    const dir = useTempDir('rpcload-profile-prop-');
    const file = join(dir, 'deep.json');
    await fc.assert(
      fc.asyncProperty(
        validProfile.chain((profile) =>
          fc.tuple(fc.constant(profile), fc.constantFrom(...pathsOf(profile)), fc.integer({ min: 65, max: 20_000 })),
        ),
        async ([profile, path, depth]) => {
          const text = JSON.stringify(replaceAt(profile, path, 0)).replace(
            /(?<=[:,[])0(?=[,\]}])/,
            `${'['.repeat(depth)}${']'.repeat(depth)}`,
          );
          writeFileSync(file, text);
          const err: unknown = await loadProfile(file, {}).then(
            () => null,
            (e: unknown) => e,
          );
          expect(err).toBeInstanceOf(RpcloadError);
          expect((err as Error).message).toMatch(
            /^[^\n]*: \/[^\n]*: nested deeper than 64 levels; expected a profile$/,
          );
        },
      ),
      { numRuns: 30 },
    );
  });
});
