import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  RESULT_SCHEMA_FILE,
  resultJsonSchema,
  resultJsonSchemaText,
} from '../../src/result-file/result-json-schema.ts';
import { RESULT_SCHEMA_ID } from '../../src/contract/result-schema.ts';

const file = fileURLToPath(new URL(`../../${RESULT_SCHEMA_FILE}`, import.meta.url));
const REGENERATE = 'UPDATE_SCHEMAS=1 npx vitest run test/result-file/schema-file.test.ts';

/**
 * Top-level keys a result file may lack: capacity (only in capacity files), byReplica (only in runs
 * with replicas), exemplars and staleConnectionRetries (only in load runs), otlp (only with an OTLP
 * push), replay (only in replays).
 */
// Keys only some files have (files written before workloads, tags and selectors have none of those;
// a load run always has byWorkload now).
const OPTIONAL_KEYS = [
  '$schema',
  'capacity',
  'byReplica',
  'byWorkload',
  'byTag',
  'bySelector',
  'setup',
  'teardown',
  'exemplars',
  'otlp',
  'replay',
  'staleConnectionRetries',
];

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

  it('describes rpcload/result@1 as a draft-07 schema with every top-level key required but OPTIONAL_KEYS', () => {
    const schema = resultJsonSchema() as {
      $schema: string;
      properties: Record<string, { const?: string }>;
      required: string[];
    };
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema.properties.schema!.const).toBe(RESULT_SCHEMA_ID);
    expect(schema.required).toEqual(Object.keys(schema.properties).filter((k) => !OPTIONAL_KEYS.includes(k)));
    expect(JSON.stringify(schema)).not.toContain('[Kind]');
  });
});
