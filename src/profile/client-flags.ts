/**
 * Client credentials and paginated methods given as command-line flags, shared by `rpcload run`
 * (a profile built from flags) and `rpcload verify`: `--client ID:SECRET`, `--client-pattern
 * PATTERN:SECRET`, and `--secret-env VAR` for the secret of clients given without one, so a
 * secret need not appear in the shell history or the process list. Errors are one-line
 * RpcloadErrors that never echo a value (it may be a secret typed without its ID).
 */
import { isMethodName, METHOD_NAME_EXPECTED } from '../api/http-call.ts';
import { RpcloadError } from '../errors.ts';

/** A client ID with its secret (the secret never leaves the token request). */
export interface FlagClient {
  readonly id: string;
  readonly secret: string;
}

/** A paginated method and, optionally, the `data` field holding its page array. */
export interface PaginatedMethod {
  readonly method: string;
  /** null = the only array in `data`. */
  readonly field: string | null;
}

/** The client flags as commander parsed them. */
export interface ClientFlags {
  readonly client?: readonly string[];
  /** `PATTERN[:SECRET]`: `{n}` is the client's number; without `{n}`, the number is appended. */
  readonly clientPattern?: string;
  /** Name of the environment variable holding the secret of clients given without one. */
  readonly secretEnv?: string;
}

/** The secret named by `--secret-env`, or an error saying what to pass. */
function secretFromEnv(flag: string, secretEnv: string | undefined, env: NodeJS.ProcessEnv): string {
  if (secretEnv === undefined)
    throw new RpcloadError(
      'bad_flag',
      `${flag}: expected ID:SECRET, found no colon (or pass --secret-env VAR to read the secret from VAR)`,
    );
  const secret = env[secretEnv];
  if (secret === undefined || secret === '')
    throw new RpcloadError(
      'bad_flag',
      `--secret-env: expected the environment variable ${secretEnv} to hold the secret, found it unset or empty`,
    );
  return secret;
}

/**
 * `ID:SECRET` (the secret may itself contain colons); `ID` alone takes the secret from the
 * variable named by `secretEnv`.
 */
export function parseClientFlag(value: string, secretEnv?: string, env: NodeJS.ProcessEnv = process.env): FlagClient {
  const colon = value.indexOf(':');
  if (colon === -1 && secretEnv !== undefined && value.length > 0)
    return { id: value, secret: secretFromEnv('--client', secretEnv, env) };
  // Never echo the value: it may be a secret typed without its ID.
  if (colon <= 0 || colon === value.length - 1)
    throw new RpcloadError(
      'bad_flag',
      `--client: expected ID:SECRET, found ${colon === -1 ? 'no colon' : 'an empty ID or secret'}`,
    );
  return { id: value.slice(0, colon), secret: value.slice(colon + 1) };
}

/** `--client-pattern PATTERN[:SECRET]` → the first `count` clients of the pattern (numbered from 1). */
export function expandClientPattern(
  value: string,
  count: number,
  secretEnv?: string,
  env: NodeJS.ProcessEnv = process.env,
): FlagClient[] {
  const colon = value.indexOf(':');
  const head = colon === -1 ? value : value.slice(0, colon);
  if (head === '' || colon === value.length - 1)
    throw new RpcloadError(
      'bad_flag',
      '--client-pattern: expected PATTERN:SECRET like app-{n}:SECRET (the value is not shown: it may hold a secret)',
    );
  const secret = colon === -1 ? secretFromEnv('--client-pattern', secretEnv, env) : value.slice(colon + 1);
  const pattern = head.includes('{n}') ? head : `${head}{n}`;
  return Array.from({ length: count }, (_, offset) => ({ id: pattern.replaceAll('{n}', String(offset + 1)), secret }));
}

/**
 * Every client the flags give, in order: the `--client`s, then the pattern's first
 * `patternCount`. An ID given twice is an error. Empty when no client flag was given.
 */
export function clientsFromFlags(
  flags: ClientFlags,
  patternCount: number,
  env: NodeJS.ProcessEnv = process.env,
): FlagClient[] {
  const clients = [
    ...(flags.client ?? []).map((value) => parseClientFlag(value, flags.secretEnv, env)),
    ...(flags.clientPattern === undefined
      ? []
      : expandClientPattern(flags.clientPattern, patternCount, flags.secretEnv, env)),
  ];
  const duplicate = clients.find((c, i) => clients.findIndex((d) => d.id === c.id) !== i);
  if (duplicate) throw new RpcloadError('bad_flag', `--client: client ${JSON.stringify(duplicate.id)} given twice`);
  return clients;
}

/** `NAME` or `NAME:ARRAYFIELD`. */
export function parsePaginatedFlag(value: string): PaginatedMethod {
  const colon = value.indexOf(':');
  const method = colon === -1 ? value : value.slice(0, colon);
  const field = colon === -1 ? null : value.slice(colon + 1);
  if (!isMethodName(method) || field === '')
    throw new RpcloadError(
      'bad_flag',
      `--paginated: expected NAME or NAME:ARRAYFIELD with ${METHOD_NAME_EXPECTED}, found ${JSON.stringify(value)}`,
    );
  return { method, field };
}
