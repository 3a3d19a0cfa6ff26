/**
 * Optional settings laid over defaults: `{ ...defaults, ...definedFields({ factor: flags.factor }) }`
 * keeps the default where a flag is absent, where a plain `factor: flags.factor` would overwrite it
 * with undefined. Also for records whose readers tell an absent field from one set to undefined
 * (`in`, Object.keys, JSON output). Where every reader treats undefined as absent, write plain fields.
 */

/** The same fields without those whose value is undefined (a new object; `fields` is not changed). */
export function definedFields<T extends object>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const defined: Partial<Record<keyof T, unknown>> = {};
  for (const key of Object.keys(fields) as (keyof T)[]) if (fields[key] !== undefined) defined[key] = fields[key];
  return defined as { [K in keyof T]?: Exclude<T[K], undefined> };
}
