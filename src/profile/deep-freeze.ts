/**
 * Freeze an object graph (plain objects and arrays; functions are left as they are). The plan is
 * shared by the driver, the views and the result writer, so no one may change it under another.
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    // Children first: an object frozen earlier (e.g. a parsed threshold) may still hold unfrozen ones.
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
