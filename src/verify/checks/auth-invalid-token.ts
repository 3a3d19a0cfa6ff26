/** The `auth.invalid_token` check: one call with a well-formed bearer token no server issued. */
import { randomBytes } from 'node:crypto';
import type { CheckDefinition } from '../check.ts';
import { judgeInvalidToken } from '../verdicts/auth.ts';
import { observeAuth } from '../auth-probe.ts';

export const authInvalidToken: CheckDefinition = {
  id: 'auth.invalid_token',
  plan: () => ({ needs: [], countsQuota: false, estimateMs: 50 }),
  // A well-formed bearer token (RFC 6750 b64token) that no server issued.
  run: async (check) => judgeInvalidToken(await observeAuth(check, `Bearer rpcload-unknown-${randomBytes(16).toString('base64url')}`)),
};
