import { describe, expect, it } from 'vitest';
import { interpolateEnv } from '../../src/profile/interpolate.ts';

const env = { HOST: 'api.example.com', SECRET: 's3cr3t-value', EMPTY: '' };

describe('interpolateEnv', () => {
  it.each([
    // a variable that is set
    [{ target: 'https://${HOST}/v1' }, { target: 'https://api.example.com/v1' }],
    // several in one string
    [{ s: '${HOST}:${HOST}' }, { s: 'api.example.com:api.example.com' }],
    // a default, unused because the variable is set
    [{ s: '${HOST:-localhost}' }, { s: 'api.example.com' }],
    // a default, used because the variable is unset
    [{ s: '${NOPE:-http://localhost:8080}' }, { s: 'http://localhost:8080' }],
    // an empty default
    [{ s: '${NOPE:-}' }, { s: '' }],
    // a set-but-empty variable without default gives ""
    [{ s: 'x${EMPTY}y' }, { s: 'xy' }],
    // a set-but-empty variable with a default takes the default (as in the shell)
    [{ s: '${EMPTY:-fallback}' }, { s: 'fallback' }],
    // nested objects and arrays
    [{ a: { b: ['${SECRET}', 1, true, null] } }, { a: { b: ['s3cr3t-value', 1, true, null] } }],
    // keys are never interpolated
    [{ '${HOST}': 1 }, { '${HOST}': 1 }],
    // $${ is a literal ${
    [{ s: 'cost: $${HOST}' }, { s: 'cost: ${HOST}' }],
    // non-strings pass through untouched
    [
      { n: 5, b: false },
      { n: 5, b: false },
    ],
    // a lone $ or { is plain text
    [{ s: 'a $ b { c }' }, { s: 'a $ b { c }' }],
  ])('%j', (input, output) => {
    const { value, problems } = interpolateEnv(input, env);
    expect(problems).toEqual([]);
    expect(value).toEqual(output);
  });

  it.each([
    // an unset variable without default names the JSON pointer and the variable
    [
      { clients: { secret: '${CLIENT_SECRET}' } },
      '/clients/secret',
      'expected environment variable CLIENT_SECRET to be set (or a default: ${CLIENT_SECRET:-…}), found it unset',
    ],
    // the pointer reaches into arrays
    [
      { list: [{ id: 'a' }, { secret: 'x-${B_SECRET}' }] },
      '/list/1/secret',
      'expected environment variable B_SECRET to be set',
    ],
    // a malformed reference
    [{ s: '${1BAD}' }, '/s', 'expected ${NAME} or ${NAME:-default}, found "${1BAD}"'],
    // an unclosed reference
    [{ s: 'a ${HOST' }, '/s', 'expected ${NAME} or ${NAME:-default}, found "${HOST"'],
  ])('%j → problem at %s', (input, path, message) => {
    const { problems } = interpolateEnv(input, env);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.path).toBe(path);
    expect(problems[0]!.message).toContain(message);
  });

  it('reports every missing variable, and never a value from the environment', () => {
    const { problems } = interpolateEnv({ a: '${SECRET}${MISSING_A}', b: ['${MISSING_B}'] }, env);
    expect(problems.map((p) => p.path)).toEqual(['/a', '/b/0']);
    expect(JSON.stringify(problems)).not.toContain(env.SECRET);
  });

  it('does not modify its input', () => {
    const input = { s: '${HOST}' };
    interpolateEnv(input, env);
    expect(input).toEqual({ s: '${HOST}' });
  });
});
