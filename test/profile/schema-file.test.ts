import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { profileJsonSchemaText } from '../../src/profile/profile-schema.ts';

const SCHEMA_FILE = fileURLToPath(new URL('../../schemas/profile.schema.json', import.meta.url));

interface SchemaNode {
  readonly type?: string;
  readonly description?: string;
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly required?: readonly string[];
  readonly items?: SchemaNode;
  readonly anyOf?: readonly SchemaNode[];
  readonly patternProperties?: Readonly<Record<string, SchemaNode>>;
}

/** Every object property in the schema, with its JSON path and whether it is required. */
function* properties(
  node: SchemaNode,
  path: string,
): Generator<{ path: string; schema: SchemaNode; required: boolean }> {
  for (const [key, schema] of Object.entries(node.properties ?? {})) {
    yield { path: `${path}/${key}`, schema, required: (node.required ?? []).includes(key) };
    yield* properties(schema, `${path}/${key}`);
  }
  if (node.items) yield* properties(node.items, `${path}/[]`);
  for (const variant of node.anyOf ?? []) yield* properties(variant, path);
  for (const value of Object.values(node.patternProperties ?? {})) yield* properties(value, `${path}/*`);
}

describe('schemas/profile.schema.json', () => {
  it('is generated from the TypeBox schema (regenerate: UPDATE_SCHEMAS=1 npx vitest run test/profile/schema-file.test.ts)', () => {
    const generated = profileJsonSchemaText();
    if (process.env.UPDATE_SCHEMAS === '1') writeFileSync(SCHEMA_FILE, generated);
    expect(
      readFileSync(SCHEMA_FILE, 'utf8'),
      'schemas/profile.schema.json is out of date: regenerate it with UPDATE_SCHEMAS=1 npx vitest run test/profile/schema-file.test.ts',
    ).toBe(generated);
  });

  it('documents every field, and the default of every optional scalar or list field (editors show these)', () => {
    const schema = JSON.parse(profileJsonSchemaText()) as SchemaNode;
    const fields = [...properties(schema, '')];
    expect(fields.length).toBeGreaterThan(50);
    const undocumented = fields.filter((f) => !f.schema.description).map((f) => f.path);
    const noDefault = fields
      .filter((f) => !f.required && f.schema.type !== 'object' && !/default/i.test(f.schema.description ?? ''))
      .map((f) => f.path);
    expect({ undocumented, noDefault }).toEqual({ undocumented: [], noDefault: [] });
  });
});
