/**
 * Every secret a plan holds — client secrets, signing secrets, certificate keys and their
 * passphrases, private_key_jwt keys — made known to this thread's redactor before any request is
 * sent, so no reply that echoes one (and no error that quotes one) can carry it into an output.
 */
import type { ClientTlsIdentity } from '../api/dispatcher.ts';
import { registerSecret } from '../util/redact.ts';
import type { ClientPlan, HttpPlan } from './plan.ts';

/** What holds the secrets: the clients and the common certificate (a plan, or verify's configuration). */
export interface SecretHolder {
  readonly clients: readonly Pick<ClientPlan, 'secret' | 'signingSecret' | 'tls' | 'assertionKey'>[];
  readonly http: Pick<HttpPlan, 'identity'>;
}

/** A JWK's private members (RFC 7518 §6.2.2, §6.3.2). */
const JWK_PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi'];

/** A key's text and the parts a server echoing it might print: a PEM body on one line, a JWK's private members. */
function keyTexts(text: string): string[] {
  if (text.trimStart().startsWith('{')) {
    try {
      const jwk = JSON.parse(text) as Record<string, unknown>;
      return [text, ...JWK_PRIVATE_MEMBERS.flatMap((name) => (typeof jwk[name] === 'string' ? [jwk[name]] : []))];
    } catch {
      return [text];
    }
  }
  const body = text
    .split(/\r?\n/)
    .filter((line) => line !== '' && !line.startsWith('-----'))
    .join('');
  return [text, body];
}

function identitySecrets(identity: ClientTlsIdentity | null): string[] {
  if (identity === null) return [];
  return [
    ...(identity.key === undefined ? [] : keyTexts(identity.key)),
    ...(identity.pfx === undefined ? [] : [identity.pfx]),
    ...(identity.passphrase === undefined ? [] : [identity.passphrase]),
  ];
}

/** The plan's secrets, as registered. */
export function planSecrets(plan: SecretHolder): string[] {
  return [
    ...identitySecrets(plan.http.identity),
    ...plan.clients.flatMap((client) => [
      client.secret,
      client.signingSecret,
      ...identitySecrets(client.tls),
      ...(client.assertionKey === null ? [] : keyTexts(client.assertionKey.text)),
    ]),
  ];
}

/** Register every secret of the plan with this thread's redactor. */
export function registerPlanSecrets(plan: SecretHolder): void {
  for (const secret of new Set(planSecrets(plan))) registerSecret(secret);
}
