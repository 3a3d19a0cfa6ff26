/** The profile JSON Schema as published, serialized from the TypeBox profile schema. */
import { ProfileSchema } from './profile-schema.ts';

/** JSON Schema dialect of the published schema (TypeBox emits draft-07 compatible keywords). */
const DIALECT = 'http://json-schema.org/draft-07/schema#';

/**
 * The profile JSON Schema as published in schemas/profile.schema.json and printed by
 * `rpcload profile schema`: the TypeBox schema serialized (its symbol keys drop out).
 */
export function profileJsonSchemaText(): string {
  return `${JSON.stringify({ $schema: DIALECT, ...ProfileSchema }, null, 2)}\n`;
}
