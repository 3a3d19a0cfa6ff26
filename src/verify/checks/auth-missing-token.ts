/** The `auth.missing_token` check: one call without an Authorization header. */
import type { CheckDefinition } from '../check.ts';
import { judgeMissingToken } from '../verdicts/auth.ts';
import { observeAuth } from '../auth-probe.ts';

export const authMissingToken: CheckDefinition = {
  id: 'auth.missing_token',
  plan: () => ({ needs: [], countsQuota: false, estimateMs: 50 }),
  run: async (check) => judgeMissingToken(await observeAuth(check, null)),
};
