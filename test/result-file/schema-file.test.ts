import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RESULT_SCHEMA_FILE, resultJsonSchema, resultJsonSchemaText } from '../../src/result-file/result-json-schema.ts';
import { RESULT_SCHEMA_ID } from '../../src/contract/result-schema.ts';

const file = fileURLToPath(new URL(`../../${RESULT_SCHEMA_FILE}`, import.meta.url));
const REGENERATE = 'UPDATE_SCHEMAS=1 npx vitest run test/result-file/schema-file.test.ts';

describe(RESULT_SCHEMA_FILE, () => {
  it('is exactly the JSON Schema generated from the TypeBox source', () => {
    const generated = resultJsonSchemaText();
    if (process.env.UPDATE_SCHEMAS === '1') {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, generated);
    }
    const committed = existsSync(file) ? readFileSync(file, 'utf8') : '';
    expect(
      committed === generated,
      `${RESULT_SCHEMA_FILE} is out of date with src/contract/result-schema.ts; regenerate it with: ${REGENERATE}`,
    ).toBe(true);
  });

  it('describes rpcload/result@1 as a draft-07 schema with every top-level key required (but those only some files have: capacity, byReplica, byWorkload, byTag, bySelector, setup, teardown, exemplars, otlp, replay)', () => {
    const schema = resultJsonSchema() as { $schema: string; properties: Record<string, { const?: string }>; required: string[] };
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema.properties.schema!.const).toBe(RESULT_SCHEMA_ID);
    expect(schema.required).toEqual(
      Object.keys(schema.properties).filter(
        (k) =>
          ![
            '$schema',
            'capacity',
            'byReplica',
            // files written before workloads, tags and selectors have none (a load run always has byWorkload now)
            'byWorkload',
            'byTag',
            'bySelector',
            'setup',
            'teardown',
            'exemplars',
            'otlp',
            'replay',
          ].includes(k),
      ),
    );
    expect(JSON.stringify(schema)).not.toContain('[Kind]');
  });
});
