/**
 * The result file's JSON Schema, generated from its TypeBox schema, and the
 * committed copy's path and text.
 */
import { RunResultSchema } from '../contract/result-schema.ts';

/** Where the generated schema is committed (relative to the package root). */
export const RESULT_SCHEMA_FILE = 'schemas/result.schema.json';

/**
 * The JSON Schema (draft-07) of `rpcload/result@1`, generated from the TypeBox source of truth.
 * JSON.stringify drops TypeBox's symbol-keyed bookkeeping, leaving plain JSON Schema.
 */
export function resultJsonSchema(): Record<string, unknown> {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    ...(JSON.parse(JSON.stringify(RunResultSchema)) as Record<string, unknown>),
  };
}

/** The committed file's exact text: pretty JSON with a trailing newline. */
export function resultJsonSchemaText(): string {
  return `${JSON.stringify(resultJsonSchema(), null, 2)}\n`;
}
