import { describe, expect, it } from 'vitest';
import { appendCursor, locatePageArray, readNextCursor } from '../../src/api/pagination.ts';

describe('appendCursor', () => {
  it.each([
    ['{}', '{"next":"c1"}'],
    ['{"filter":"a"}', '{"filter":"a","next":"c1"}'],
    ['{ "filter": "a" } ', '{ "filter": "a","next":"c1"}'],
    ['{"nested":{"x":1}}', '{"nested":{"x":1},"next":"c1"}'],
  ])('%s → %s', (body, expected) => {
    const out = appendCursor(body, 'c1');
    expect(out).toBe(expected);
    expect(JSON.parse(out)).toEqual({ ...(JSON.parse(body) as object), next: 'c1' });
  });

  it('escapes cursors that need it', () => {
    expect(JSON.parse(appendCursor('{}', 'a"b\\c'))).toEqual({ next: 'a"b\\c' });
  });
});

describe('locatePageArray', () => {
  it.each([
    [{ items: [1, 2], next: null }, undefined, { field: 'items', items: [1, 2] }],
    [{ rows: [], total: 0 }, undefined, { field: 'rows', items: [] }],
    [{ a: [1], b: [2] }, 'b', { field: 'b', items: [2] }],
    [{ a: [1], b: [2] }, undefined, { problem: 'data holds 2 arrays (a, b); name one' }],
    [{ count: 1 }, undefined, { problem: 'data holds no array' }],
    [{ items: 'x' }, 'items', { problem: 'data.items is not an array' }],
  ])('%j (field %s)', (data, field, expected) => expect(locatePageArray(data, field)).toEqual(expected));
});

describe('readNextCursor', () => {
  it.each([
    [{ next: 'abc' }, { cursor: 'abc' }],
    [{ next: null }, { cursor: null }],
    [{}, { cursor: null }], // absent means no further page
    [{ next: '' }, { problem: 'next is "", expected a cursor or null' }],
    [{ next: 5 }, { problem: 'next is number, expected a string or null' }],
  ])('%j → %j', (data, expected) => expect(readNextCursor(data)).toEqual(expected));
});
