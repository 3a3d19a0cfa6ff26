/**
 * The load client the tests run with. `RPCLOAD_TEST_HTTP_CLIENT=undici` (or `rpcload`; `fast`, its
 * former name, too) makes the helpers that build plans, spawn the CLI or open connections use that
 * client, so the suites whose results must not depend on the client run once with each (`npm test` runs them again with
 * undici: the `undici` project of vitest.config.ts). Unset, the profile's default applies.
 */
import type { HttpClientName } from '../../src/profile/plan.ts';
import { HTTP_CLIENTS, httpClientNamed } from '../../src/profile/http-clients.ts';

export function testHttpClient(): HttpClientName | undefined {
  const name = process.env.RPCLOAD_TEST_HTTP_CLIENT;
  if (name === undefined || name === '') return undefined;
  const client = httpClientNamed(name);
  if (client === undefined)
    throw new Error(
      `RPCLOAD_TEST_HTTP_CLIENT must be one of ${HTTP_CLIENTS.join(', ')}, found ${JSON.stringify(name)}`,
    );
  return client;
}

/** `profile` with `http.client` set to the test client, unless the profile chose one itself. */
export function withTestHttpClient<T extends Record<string, unknown>>(profile: T): T {
  const client = testHttpClient();
  if (client === undefined) return profile;
  const http = (profile.http ?? {}) as Record<string, unknown>;
  return 'client' in http ? profile : { ...profile, http: { ...http, client } };
}

/** CLI arguments with `--http-client` added to the commands that run a load (run, capacity), unless given. */
export function withTestHttpClientFlag(args: readonly string[]): readonly string[] {
  const client = testHttpClient();
  if (client === undefined || (args[0] !== 'run' && args[0] !== 'capacity') || args.includes('--http-client'))
    return args;
  return [...args, '--http-client', client];
}
