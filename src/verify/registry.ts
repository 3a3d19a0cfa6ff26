import type { CheckDefinition } from './check.ts';
import * as checks from './checks/index.ts';
import { CHECK_IDS, type CheckId } from './check-ids.ts';

/** Every check, by id. */
const BY_ID: Readonly<Record<CheckId, CheckDefinition>> = Object.fromEntries(Object.values(checks).map((check) => [check.id, check])) as Record<CheckId, CheckDefinition>;

/** The checks to run, in the order of DESIGN.md's table (`only` = a subset; null = all). */
export function selectChecks(only: readonly CheckId[] | null): CheckDefinition[] {
  return CHECK_IDS.filter((id) => only === null || only.includes(id)).map((id) => BY_ID[id]);
}
