import { describe, expect, it } from 'vitest';
import { RpcloadError } from '../../src/errors.ts';
import type { TemplateContext } from '../../src/profile/plan.ts';
import { compileBodyTemplate, tryCompileBodyTemplate } from '../../src/profile/template.ts';

/** A context whose random() returns the given values in turn (then repeats the last). */
function context(random: readonly number[] = [0.5], overrides: Partial<TemplateContext> = {}): TemplateContext {
  let next = 0;
  return {
    clientId: 'client-7',
    clientIndex: 6,
    iteration: 42,
    random: () => random[Math.min(next++, random.length - 1)]!,
    ...overrides,
  };
}

describe('compileBodyTemplate: render', () => {
  it.each([
    // no templates: the body as JSON, any value kind
    [
      { a: 1, b: 'x', c: [true, null, 2.5], d: { e: 'f' } },
      context(),
      '{"a":1,"b":"x","c":[true,null,2.5],"d":{"e":"f"}}',
      'static',
    ],
    // an empty body
    [{}, context(), '{}', 'static'],
    // a whole-string template yields the raw value: a string for client.id
    [{ id: '{{client.id}}' }, context(), '{"id":"client-7"}', 'client'],
    // … a number for client.index
    [{ i: '{{client.index}}' }, context(), '{"i":6}', 'client'],
    // … a number for iteration (which changes per request)
    [{ n: '{{iteration}}' }, context(), '{"n":42}', 'dynamic'],
    // int: min + floor(random × (max − min + 1)) → 1 + floor(0.5 × 100)
    [{ n: '{{int 1 100}}' }, context([0.5]), '{"n":51}', 'dynamic'],
    // int: random 0 gives the minimum (negative bounds allowed)
    [{ n: '{{int -5 5}}' }, context([0]), '{"n":-5}', 'dynamic'],
    // int: random just under 1 gives the maximum
    [{ n: '{{int 1 3}}' }, context([0.9999]), '{"n":3}', 'dynamic'],
    // pick: uniform over the options, trimmed
    [{ c: '{{pick red | green | blue}}' }, context([0.5]), '{"c":"green"}', 'dynamic'],
    // pad: N x characters, fixed, so the body stays static
    [{ p: '{{pad 3}}' }, context(), '{"p":"xxx"}', 'static'],
    // interpolation inside a string: numbers become text
    [{ m: 'hi {{client.id}} #{{iteration}}' }, context(), '{"m":"hi client-7 #42"}', 'dynamic'],
    // interpolation of a fixed pad keeps the literal around it
    [{ m: 'a{{pad 2}}b' }, context(), '{"m":"axxb"}', 'static'],
    // spaces inside the braces are allowed
    [{ id: '{{ client.id }}' }, context(), '{"id":"client-7"}', 'client'],
    // templates inside arrays and nested objects
    [
      { list: ['{{client.id}}', 1, { deep: '{{client.index}}' }] },
      context(),
      '{"list":["client-7",1,{"deep":6}]}',
      'client',
    ],
    // a client id that needs JSON escaping, raw and interpolated
    [
      { a: '{{client.id}}', b: '<{{client.id}}>' },
      context([0.5], { clientId: 'q"\\\n' }),
      '{"a":"q\\"\\\\\\n","b":"<q\\"\\\\\\n>"}',
      'client',
    ],
    // keys and literal text are escaped once, at compile time
    [{ 'we"ird': 'tab\there' }, context(), '{"we\\"ird":"tab\\there"}', 'static'],
    // lone braces are plain text
    [{ s: 'a } b { c }}' }, context(), '{"s":"a } b { c }}"}', 'static'],
    // pick options that need escaping inside an interpolated string
    [{ s: 'say {{pick "hi"}}' }, context(), '{"s":"say \\"hi\\""}', 'dynamic'],
  ])('%j → %s', (args, ctx, json, variability) => {
    const template = compileBodyTemplate(args);
    const text = template.render(ctx);
    expect(text).toBe(json);
    expect(() => JSON.parse(text) as unknown).not.toThrow();
    expect(template.variability).toBe(variability);
  });

  it('renders {{uuid}} as a version-4 UUID from the seeded random, raw and interpolated', () => {
    const template = compileBodyTemplate({ id: '{{uuid}}', ref: 'req-{{uuid}}' });
    const { id, ref } = JSON.parse(template.render(context([0.1, 0.7, 0.3, 0.9, 0.5]))) as { id: string; ref: string };
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    expect(id).toMatch(uuid);
    expect(ref.slice(4)).toMatch(uuid);
    expect(template.variability).toBe('dynamic');
  });

  it('gives the same body for the same random sequence and a different one for another', () => {
    const template = compileBodyTemplate({ n: '{{int 1 1000000}}', c: '{{pick a|b|c|d}}' });
    expect(template.render(context([0.25, 0.75]))).toBe(template.render(context([0.25, 0.75])));
    expect(template.render(context([0.25, 0.75]))).not.toBe(template.render(context([0.8, 0.1])));
  });
});

describe('compileBodyTemplate: syntax problems', () => {
  it.each([
    // unknown expression
    [
      { x: '{{nope}}' },
      '/x',
      'expected a template {{client.id}}, {{client.index}}, {{iteration}}, {{uuid}}, {{pick a|b}}, {{int MIN MAX}}, {{pad N}}, {{vars.NAME}}, {{data.SET.COLUMN}} or {{setup.NAME}}, found "{{nope}}"',
    ],
    // unclosed braces
    [{ x: 'a {{client.id' }, '/x', 'expected "}}" to close the template, found "{{client.id"'],
    // int bounds reversed
    [{ x: '{{int 5 1}}' }, '/x', 'expected {{int MIN MAX}} with integers MIN ≤ MAX, found "{{int 5 1}}"'],
    // int with non-integers
    [{ x: '{{int 1.5 3}}' }, '/x', 'expected {{int MIN MAX}} with integers MIN ≤ MAX, found "{{int 1.5 3}}"'],
    // int with one bound
    [{ x: '{{int 3}}' }, '/x', 'expected {{int MIN MAX}} with integers MIN ≤ MAX, found "{{int 3}}"'],
    // pick without options
    [{ x: '{{pick}}' }, '/x', 'expected {{pick a|b|c}} with non-empty options, found "{{pick}}"'],
    // pick with an empty option
    [{ x: '{{pick a||b}}' }, '/x', 'expected {{pick a|b|c}} with non-empty options, found "{{pick a||b}}"'],
    // pad negative
    [{ x: '{{pad -1}}' }, '/x', 'expected {{pad N}} with an integer N from 0 to 16777216, found "{{pad -1}}"'],
    // an argument where none is taken
    [{ x: '{{uuid v7}}' }, '/x', 'expected {{uuid}} without arguments, found "{{uuid v7}}"'],
    // the path reaches into arrays and nested objects
    [{ a: [{ b: ['ok', '{{x}}'] }] }, '/a/0/b/1', 'found "{{x}}"'],
    // keys with "/" and "~" are escaped in the JSON pointer
    [{ 'a/b~c': '{{x}}' }, '/a~1b~0c', 'found "{{x}}"'],
  ])('%j → %s', (args, path, message) => {
    const { template, problems } = tryCompileBodyTemplate(args);
    expect(template).toBeUndefined();
    expect(problems).toHaveLength(1);
    expect(problems[0]!.path).toBe(path);
    expect(problems[0]!.message).toContain(message);
  });

  it('collects every problem, under the base pointer', () => {
    const { problems } = tryCompileBodyTemplate(
      { a: '{{x}}', b: ['{{int 2 1}}'], c: '{{client.id}}' },
      '/scenarios/0/steps/1/args',
    );
    expect(problems.map((p) => p.path)).toEqual(['/scenarios/0/steps/1/args/a', '/scenarios/0/steps/1/args/b/0']);
  });

  it('throws one RpcloadError naming each path when compiled directly', () => {
    expect(() => compileBodyTemplate({ a: '{{x}}', b: '{{y}}' })).toThrow(RpcloadError);
    expect(() => compileBodyTemplate({ a: '{{x}}', b: '{{y}}' })).toThrow(/args: \/a: .*\nargs: \/b: /);
  });
});
