/**
 * Structural problems of a value against a TypeBox schema, worded "expected …, found …" for
 * people rather than TypeBox's "Expected union value". A failed union is resolved to the variant
 * the value was most likely meant as, so `rate: { "from": "x" }` reports `/rate/from`, not "no
 * union variant matched".
 */
import type { TSchema } from '@sinclair/typebox';
import { Value, ValueErrorType, type ValueError } from '@sinclair/typebox/value';
import { expected, type Problem } from './problems.ts';

export function schemaProblems(schema: TSchema, value: unknown, basePointer = ''): Problem[] {
  const problems: Problem[] = [];
  const reported = new Set<string>();
  for (const error of Value.Errors(schema, value)) {
    const pointer = basePointer + error.path;
    // TypeBox reports a missing required property twice (required, then its type): keep one.
    if (reported.has(pointer)) continue;
    reported.add(pointer);
    problems.push(...describeError(error, pointer));
  }
  return problems;
}

function describeError(error: ValueError, pointer: string): Problem[] {
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return [{ path: pointer, message: `expected ${describeSchema(error.schema)} (required), found nothing` }];
    case ValueErrorType.ObjectAdditionalProperties: {
      // TypeBox puts the object schema itself on an additional-property error.
      const allowed = Object.keys((error.schema.properties as object | undefined) ?? {});
      const name = error.path
        .slice(error.path.lastIndexOf('/') + 1)
        .replace(/~1/g, '/')
        .replace(/~0/g, '~');
      const hint = allowed.length > 0 ? `one of the properties ${allowed.join(', ')}` : 'no other properties';
      return [{ path: pointer, message: `expected ${hint}, found unknown property ${JSON.stringify(name)}` }];
    }
    case ValueErrorType.Union: {
      const variant = likelyVariant(error.schema.anyOf as TSchema[], error.value);
      return variant
        ? schemaProblems(variant, error.value, pointer)
        : [expected(pointer, describeSchema(error.schema), error.value)];
    }
    default:
      return [expected(pointer, describeSchema(error.schema), error.value)];
  }
}

const jsonType = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

function schemaTypes(schema: TSchema): string[] {
  const type = schema.type as string | undefined;
  if (type === 'integer') return ['number'];
  if (type !== undefined) return [type];
  return ((schema.anyOf as TSchema[] | undefined) ?? []).flatMap(schemaTypes);
}

/**
 * The union variant a value was meant as: the only one of its JSON type, or among objects the one
 * whose required properties are all present (the more of them the better), then the one sharing
 * the most property names with it. Undefined when no variant has the value's type (then
 * "expected A or B" is the best message).
 */
function likelyVariant(variants: readonly TSchema[], value: unknown): TSchema | undefined {
  const sameType = variants.filter((variant) => schemaTypes(variant).includes(jsonType(value)));
  if (sameType.length <= 1 || jsonType(value) !== 'object') return sameType.length === 1 ? sameType[0] : undefined;
  const keys = Object.keys(value as object);
  const score = (variant: TSchema): number => {
    const properties = Object.keys((variant.properties as object | undefined) ?? {});
    const required = (variant.required as string[] | undefined) ?? [];
    const requiredScore = required.every((key) => keys.includes(key)) ? 1000 * (1 + required.length) : 0;
    return requiredScore + keys.filter((key) => properties.includes(key)).length;
  };
  return sameType.reduce((best, variant) => (score(variant) > score(best) ? variant : best));
}

/** Human words for what a schema accepts. */
function describeSchema(schema: TSchema): string {
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const anyOf = schema.anyOf as TSchema[] | undefined;
  if (anyOf) {
    if (anyOf.every((variant) => variant.const !== undefined))
      return `one of ${anyOf.map((v) => JSON.stringify(v.const)).join(', ')}`;
    return anyOf.map(describeSchema).join(' or ');
  }
  switch (schema.type) {
    case 'string':
      return (schema.minLength as number | undefined) ? 'a non-empty string' : 'a string';
    case 'integer':
      return `an integer${describeRange(schema)}`;
    case 'number':
      return `a number${describeRange(schema)}`;
    case 'boolean':
      return 'true or false';
    case 'array': {
      const minItems = (schema.minItems as number | undefined) ?? 0;
      return minItems > 0 ? `a list of at least ${minItems} item${minItems === 1 ? '' : 's'}` : 'a list';
    }
    case 'object': {
      if (schema.patternProperties) {
        const [valueSchema] = Object.values(schema.patternProperties as Record<string, TSchema>);
        return valueSchema && valueSchema.type
          ? `an object whose values are each ${describeSchema(valueSchema)}`
          : 'an object';
      }
      const names = Object.keys((schema.properties as object | undefined) ?? {});
      return names.length > 0 && names.length <= 4 ? `an object with ${names.join(', ')}` : 'an object';
    }
    default:
      return 'a valid value';
  }
}

function describeRange(schema: TSchema): string {
  const { minimum, maximum, exclusiveMinimum } = schema as {
    minimum?: number;
    maximum?: number;
    exclusiveMinimum?: number;
  };
  if (minimum !== undefined && maximum !== undefined) return ` from ${minimum} to ${maximum}`;
  if (exclusiveMinimum !== undefined) return ` greater than ${exclusiveMinimum}`;
  if (minimum !== undefined) return ` ≥ ${minimum}`;
  return '';
}
