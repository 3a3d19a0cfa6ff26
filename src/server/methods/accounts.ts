/**
 * `accounts.login`: an application-level login for user journeys (a user signs in, then browses or
 * orders). Any username signs in with the one demo password; sessions are opaque and stateless.
 */
import { createHash, randomBytes } from 'node:crypto';
import { errorReply, INVALID_ARGUMENTS, successReply, type Reply } from '../reply.ts';
import type { MethodHandler } from './method.ts';
import { DEMO_PASSWORD } from '../defaults.ts';

const MAX_USERNAME_LENGTH = 128;

/**
 * A wrong password. 400, not 401 or 403: those belong to the bearer token (RFC 6750), and a 401
 * makes a client such as rpcload throw its still-valid token away and fetch another.
 */
export const INVALID_CREDENTIALS = errorReply(400, 'invalid_credentials');

/**
 * Args `username` (a string of 1–128 characters) and `password` (a string). Data
 * `{session, user: {id, username}}`: the user id is the same for a username on every call and
 * every server; the session is new each time and nothing else checks it.
 */
export const login: MethodHandler = (args): Reply => {
  const { username, password } = args;
  const usernameOk = typeof username === 'string' && username.length > 0 && username.length <= MAX_USERNAME_LENGTH;
  if (!usernameOk || typeof password !== 'string') return INVALID_ARGUMENTS;
  if (password !== DEMO_PASSWORD) return INVALID_CREDENTIALS;
  const id = `u_${createHash('sha256').update(username).digest('base64url').slice(0, 12)}`;
  return successReply({ session: `s_${randomBytes(18).toString('base64url')}`, user: { id, username } });
};
