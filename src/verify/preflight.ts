/**
 * The verify run's preflight: the target reached and a token obtained for every client
 * before any check starts.
 */
import type { Dispatcher } from 'undici';
import type { DispatcherOptions } from '../api/dispatcher.ts';
import { callApi } from '../api/http-call.ts';
import { certificateHint } from '../api/certificate-hint.ts';
import { clientCertificateProblem } from '../api/tls-diagnosis.ts';
import { RpcloadError } from '../errors.ts';
import type { TokenBook } from './tokens.ts';
import type { VerifyConfig } from './config.ts';

/**
 * Before any check: reach the target and get a token for every client, then reach every replica,
 * so that a wrong URL, an untrusted certificate, a refused client certificate or a wrong secret is
 * one clear line (exit 2), not twelve failed checks.
 */
export async function preflight(
  config: VerifyConfig,
  tokens: TokenBook,
  transport: DispatcherOptions,
  dispatcher: Dispatcher,
): Promise<void> {
  const results = await Promise.all(
    config.clients.map(async (client) => ({ client, result: await tokens.request(client.id) })),
  );
  for (const { client, result } of results) {
    if (result.ok) {
      tokens.adopt(client.id, result);
      continue;
    }
    if (result.outcome.startsWith('transport:')) {
      const code = result.outcome.slice('transport:'.length);
      // An mTLS server turning the connection away shows only as a reset to HTTP: say which it is.
      const certificate = await clientCertificateProblem(
        new URL(config.target),
        { ...transport, identity: client.tls ?? config.identity },
        config.requestTimeoutMs,
      );
      if (certificate !== null) throw new RpcloadError('unreachable', `cannot reach ${config.target}: ${certificate}`);
      const hint = await certificateHint(config.target, result.outcome);
      throw new RpcloadError('unreachable', `cannot reach ${config.target}: ${code}${hint}`);
    }
    const hint =
      result.status === 404
        ? ` — is the token method ${JSON.stringify(config.tokenMethod)} right (--token-method)?`
        : result.status === 429
          ? '' // the detail says how often the identity provider refused, and how long rpcload waited
          : config.clientAuth === 'private_key_jwt'
            ? " — check the client's private key and the server's registered public key"
            : ' — check the client ID and secret, and --client-auth';
    throw new RpcloadError('token_failed', `client ${client.id}: ${result.detail}${hint}`);
  }
  await reachReplicas(config, dispatcher);
}

/** Every replica answers (a 401 is an answer, and spends no quota): a wrong replica URL is one clear line. */
async function reachReplicas(config: VerifyConfig, dispatcher: Dispatcher): Promise<void> {
  await Promise.all(
    config.replicas.map(async (replica) => {
      const reply = await callApi(dispatcher, {
        baseUrl: replica,
        method: config.methods[0]!,
        body: '{}',
        token: null,
        timeoutMs: config.requestTimeoutMs,
      });
      if (reply.transportError !== null)
        throw new RpcloadError(
          'unreachable',
          `cannot reach replica ${replica}: ${reply.transportError.replace(/^transport:/, '')}`,
        );
    }),
  );
}
