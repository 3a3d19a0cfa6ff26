import { describe, expect, it } from 'vitest';
import { CursorCodec, paramsFingerprint } from '../../src/server/methods/cursor.ts';

const codec = new CursorCodec(Buffer.alloc(32, 7));
const state = { offset: 200, expiresAtMs: 1_700_000_000_000, paramsHash: paramsFingerprint({ filter: 'alpha' }) };
const cursor = codec.encode(state);

describe('CursorCodec', () => {
  it('round-trips its own cursors, which are opaque (no readable offset)', () => {
    expect(codec.decode(cursor)).toEqual(state);
    expect(cursor).not.toContain('200');
    expect(cursor).toMatch(/^[A-Za-z0-9_.-]+$/); // URL- and JSON-safe
  });

  it.each([
    ['another key', new CursorCodec(Buffer.alloc(32, 8)).encode(state)], // from another server
    [
      'an edited payload',
      `${Buffer.from(`999.${state.expiresAtMs}.${state.paramsHash}`).toString('base64url')}.${cursor.split('.')[1]}`,
    ],
    ['a truncated signature', cursor.slice(0, -2)],
    ['no signature', cursor.split('.')[0]!],
    ['garbage', 'not-a-cursor'],
    ['empty', ''],
    ['a very long string', 'a.'.repeat(1000)],
  ])('rejects %s', (_name, text) => expect(codec.decode(text)).toBeUndefined());
});

describe('paramsFingerprint', () => {
  it.each([
    [{ filter: 'a', pageSize: 10 }, { pageSize: 10, filter: 'a' }, true], // key order does not matter
    [{ filter: 'a', next: 'x' }, { filter: 'a', next: 'y' }, true], // `next` is not a parameter of the walk
    [{ filter: 'a' }, { filter: 'b' }, false],
    [{ filter: 'a' }, { filter: 'a', pageSize: 10 }, false], // an added parameter
    [{ o: { b: 1, a: 2 } }, { o: { a: 2, b: 1 } }, true], // nested objects too
    [{}, { filter: null }, false],
  ])('%j vs %j → same: %s', (a, b, same) => expect(paramsFingerprint(a) === paramsFingerprint(b)).toBe(same));
});
