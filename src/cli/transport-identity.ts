/**
 * The transport flags (transport-flags.ts) read and checked: the client certificate of `--cert FILE
 * --key FILE` or `--pfx FILE` (with `--key-passphrase-env VAR`), and HTTP/2 required. A bad or
 * mismatched key pair is one line naming the file (exit 2).
 */
import type { ClientTlsIdentity } from '../api/dispatcher.ts';
import { RpcloadError } from '../errors.ts';
import { readTlsIdentity } from '../profile/key-files.ts';
import type { TransportFlags } from './transport-flags.ts';

/** The client certificate the flags give (read and checked), or undefined when they give none. */
export function identityFromFlags(
  flags: TransportFlags,
  env: NodeJS.ProcessEnv = process.env,
): ClientTlsIdentity | undefined {
  if (flags.cert === undefined && flags.pfx === undefined) {
    if (flags.key !== undefined)
      throw new RpcloadError('bad_flag', '--key: goes with --cert (the certificate it is the key of)');
    if (flags.keyPassphraseEnv !== undefined)
      throw new RpcloadError('bad_flag', '--key-passphrase-env: goes with --cert/--key or --pfx');
    return undefined;
  }
  if (flags.cert !== undefined && flags.pfx !== undefined)
    throw new RpcloadError('bad_flag', '--pfx: give either --cert (with --key) or --pfx, not both');
  if (flags.pfx !== undefined && flags.key !== undefined)
    throw new RpcloadError('bad_flag', '--key: goes with --cert; a --pfx file holds its own key');
  let passphrase: string | undefined;
  if (flags.keyPassphraseEnv !== undefined) {
    passphrase = env[flags.keyPassphraseEnv];
    if (passphrase === undefined || passphrase === '')
      throw new RpcloadError(
        'bad_flag',
        `--key-passphrase-env: expected the environment variable ${flags.keyPassphraseEnv} to hold the passphrase, found it unset or empty`,
      );
  }
  const flag = flags.pfx !== undefined ? '--pfx' : '--cert';
  const read = readTlsIdentity(process.cwd(), { cert: flags.cert, key: flags.key, pfx: flags.pfx, passphrase });
  if (!read.ok) throw new RpcloadError('bad_flag', `${flag}: ${read.reason}`);
  return read.value;
}

/** What the transport flags override in a plan: the common client certificate, and HTTP/2 required. */
export function transportOverridesOf(
  flags: TransportFlags,
  env: NodeJS.ProcessEnv = process.env,
): { identity?: ClientTlsIdentity; httpVersion?: '2' } {
  const identity = identityFromFlags(flags, env);
  return {
    ...(identity === undefined ? {} : { identity }),
    ...(flags.http2 === true ? { httpVersion: '2' as const } : {}),
  };
}
