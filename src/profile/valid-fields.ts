/**
 * The fields of a profile node that pass their own schema, which the semantic checks run on so that
 * one bad field hides no other problem.
 */
import type { Static, TObject } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The properties of `node` that pass their own schema. Semantic checks run on these, so a bad
 * field (already reported by the schema) neither hides its siblings' problems nor causes false
 * ones: it is simply absent, and its default applies.
 */
export function validFields<S extends TObject>(schema: S, node: unknown): Partial<Static<S>> {
  if (!isRecord(node)) return {};
  const fields: Record<string, unknown> = {};
  for (const [key, propertySchema] of Object.entries(schema.properties)) {
    if (node[key] !== undefined && Value.Check(propertySchema, node[key])) fields[key] = node[key];
  }
  return fields;
}
