import { describe, expect, it } from 'vitest';
import { definedFields } from '../../src/util/defined-fields.ts';

describe('definedFields', () => {
  it('leaves out undefined fields, so laying flags over defaults keeps the defaults of absent flags', () => {
    const defaults = { factor: 2, tolerance: 0.05, label: 'base' };
    const flags = { factor: 3, tolerance: undefined, label: undefined };
    expect({ ...defaults, ...definedFields(flags) }).toEqual({ factor: 3, tolerance: 0.05, label: 'base' });
    expect(Object.keys(definedFields(flags))).toEqual(['factor']);
  });

  it('keeps every other falsy value and does not change its argument', () => {
    const fields = { zero: 0, empty: '', no: false, nothing: null, gone: undefined };
    expect(definedFields(fields)).toStrictEqual({ zero: 0, empty: '', no: false, nothing: null });
    expect('gone' in fields).toBe(true);
  });
});
