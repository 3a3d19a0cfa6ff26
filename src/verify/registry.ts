/** Every conformance check definition by id, and the selection verify runs, in report order. */
import type { CheckDefinition } from './check.ts';
import { envelope } from './checks/envelope.ts';
import { authInvalidToken, authMissingToken } from './checks/auth.ts';
import { ratelimitThreshold } from './checks/ratelimit-threshold.ts';
import { ratelimitResponse } from './checks/ratelimit-response.ts';
import { ratelimitRetryAfterHonoured } from './checks/ratelimit-retry-after-honoured.ts';
import { ratelimitPerClient } from './checks/ratelimit-per-client.ts';
import { ratelimitAllMethods } from './checks/ratelimit-all-methods.ts';
import { ratelimitConcurrentBurst } from './checks/ratelimit-concurrent-burst.ts';
import { ratelimitReplicas } from './checks/ratelimit-replicas.ts';
import { ratelimitRestart } from './checks/ratelimit-restart.ts';
import { ratelimitStoreOutage } from './checks/ratelimit-store-outage.ts';
import { payloadLimit } from './checks/payload-limit.ts';
import { pagination } from './checks/pagination.ts';
import { tls } from './checks/tls.ts';
import { CHECK_IDS, type CheckId } from './check-ids.ts';

/** Every check, by id. */
const BY_ID: Readonly<Record<CheckId, CheckDefinition>> = Object.fromEntries(
  [
    envelope,
    authMissingToken,
    authInvalidToken,
    ratelimitThreshold,
    ratelimitResponse,
    ratelimitRetryAfterHonoured,
    ratelimitPerClient,
    ratelimitAllMethods,
    ratelimitConcurrentBurst,
    ratelimitReplicas,
    ratelimitStoreOutage,
    ratelimitRestart,
    payloadLimit,
    pagination,
    tls,
  ].map((check) => [check.id, check]),
) as Record<CheckId, CheckDefinition>;

/** The checks to run, in the order verify reports them (`only` = a subset; null = all). */
export function selectChecks(only: readonly CheckId[] | null): CheckDefinition[] {
  return CHECK_IDS.filter((id) => only === null || only.includes(id)).map((id) => BY_ID[id]);
}
