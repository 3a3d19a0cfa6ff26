/**
 * Each client's credentials beyond its secret: its own TLS certificate (mTLS), its private_key_jwt
 * signing key, and the signing secret its requests are signed with — given per listed client, or
 * found by client id through a file pattern (`certs/{id}.pem`). Every file is read and checked
 * here, so a bad key is a profile problem naming the file.
 */
import type { AssertionAlg } from '../api/client-assertion.ts';
import { readAssertionKey, readTlsIdentity } from './key-files.ts';
import type { ClientPlan } from './plan.ts';
import type { Problem } from './problems.ts';

/** A client's credential settings as written: its list entry's fields, or nothing (patterns apply). */
export interface OwnCredentials {
  readonly cert?: string;
  readonly key?: string;
  readonly privateKey?: string;
  readonly signingSecret?: string;
}

/** Credential files found by client id (`{id}` in each). */
export interface CredentialPatterns {
  readonly certPattern?: string;
  readonly keyPattern?: string;
  readonly privateKeyPattern?: string;
}

export interface CredentialContext {
  /** Directory the files are relative to. */
  readonly baseDir: string;
  /** Passphrase of encrypted certificate keys (http.keyPassphrase). */
  readonly keyPassphrase?: string;
  /** auth.assertionAlg: null = each key's natural algorithm. */
  readonly assertionAlg: AssertionAlg | null;
  /** private_key_jwt: every client needs a signing key. */
  readonly needsAssertionKey: boolean;
  /** Where the clients block sits in the profile, for problem paths; default `/clients`. */
  readonly pointer?: string;
}

/** Where a clients block sits (`/clients`, or a workload's `/workloads/N/clients`). */
export function pointerOf(context: Pick<CredentialContext, 'pointer'>): string {
  return context.pointer ?? '/clients';
}

type BaseClient = Pick<ClientPlan, 'id' | 'secret' | 'weight'>;

/** Pattern failures listed one by one up to this many; more are counted. */
const LISTED_FAILURES = 3;

const PATTERN_FIELDS = ['certPattern', 'keyPattern', 'privateKeyPattern'] as const;

/**
 * The clients with their credentials. `own(i)` is client i's list entry (undefined for pattern
 * clients); `context.pointer` is where the block sits (`/clients`). Problems go to `problems`.
 */
export function withCredentials(
  clients: readonly BaseClient[],
  own: (index: number) => OwnCredentials | undefined,
  patterns: CredentialPatterns,
  sharedSigningSecret: string | undefined,
  context: CredentialContext,
  problems: Problem[],
): ClientPlan[] {
  for (const field of PATTERN_FIELDS) {
    const pattern = patterns[field];
    if (pattern !== undefined && !pattern.includes('{id}'))
      problems.push({
        path: `${pointerOf(context)}/${field}`,
        message: `expected a file pattern containing {id} (e.g. "certs/{id}.pem"), found ${JSON.stringify(pattern)}`,
      });
  }
  if (patterns.keyPattern !== undefined && patterns.certPattern === undefined)
    problems.push({
      path: `${pointerOf(context)}/keyPattern`,
      message: 'expected clients.certPattern beside it (key files without certificates)',
    });
  // Pattern failures are gathered per field, so ten thousand clients without a file make one line, not ten thousand.
  const patternFailures = new Map<string, string[]>();
  const patternFailure = (field: string, reason: string): void => {
    const list = patternFailures.get(field) ?? [];
    list.push(reason);
    patternFailures.set(field, list);
  };
  const fileOf = (pattern: string | undefined, id: string): string | undefined => pattern?.replaceAll('{id}', id);

  const resolved = clients.map((client, index): ClientPlan => {
    const entry = own(index);
    const listed = (field: keyof OwnCredentials): string => `${pointerOf(context)}/list/${index}/${field}`;
    const cert = entry?.cert ?? fileOf(patterns.certPattern, client.id);
    const key = entry?.cert !== undefined ? entry.key : (entry?.key ?? fileOf(patterns.keyPattern, client.id));
    let tls: ClientPlan['tls'] = null;
    if (cert !== undefined) {
      const read = readTlsIdentity(context.baseDir, { cert, key, passphrase: context.keyPassphrase });
      if (read.ok) tls = read.value;
      else if (entry?.cert !== undefined)
        problems.push({
          path: listed('cert'),
          message: `expected a client certificate with its private key, found ${read.reason}`,
        });
      else patternFailure('certPattern', `${client.id}: ${read.reason}`);
    } else if (entry?.key !== undefined) {
      problems.push({ path: listed('key'), message: 'expected cert beside it (a key without its certificate)' });
    }
    const keyFile = entry?.privateKey ?? fileOf(patterns.privateKeyPattern, client.id);
    let assertionKey: ClientPlan['assertionKey'] = null;
    if (keyFile !== undefined) {
      const read = readAssertionKey(context.baseDir, keyFile, context.assertionAlg);
      if (read.ok) assertionKey = read.value;
      else if (entry?.privateKey !== undefined)
        problems.push({
          path: listed('privateKey'),
          message: `expected a private key for private_key_jwt, found ${read.reason}`,
        });
      else patternFailure('privateKeyPattern', `${client.id}: ${read.reason}`);
    } else if (context.needsAssertionKey) {
      patternFailure('privateKey', client.id);
    }
    return {
      ...client,
      tls,
      assertionKey,
      signingSecret: entry?.signingSecret || sharedSigningSecret || client.secret,
    };
  });

  for (const [field, reasons] of patternFailures) {
    const listed =
      reasons.slice(0, LISTED_FAILURES).join('; ') +
      (reasons.length > LISTED_FAILURES ? ` … (${reasons.length} clients)` : '');
    if (field === 'privateKey')
      problems.push({
        path: '/auth/clientAuth',
        message: `expected a private key for every client with private_key_jwt (clients.list[].privateKey or clients.privateKeyPattern), found none for ${listed}`,
      });
    else
      problems.push({
        path: `${pointerOf(context)}/${field}`,
        message: `expected a readable ${field === 'certPattern' ? 'certificate and key' : 'private key'} for every client, found ${listed}`,
      });
  }
  return resolved;
}
