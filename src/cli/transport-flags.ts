/**
 * The transport flags `run`, `verify` and `capacity` share — `--http2`, and the client certificate
 * of `--cert FILE --key FILE` (or `--pfx FILE`) with `--key-passphrase-env VAR` — declared once.
 * transport-identity.ts reads and checks them when a command runs.
 */
import type { Command } from 'commander';

export interface TransportFlags {
  http2?: boolean;
  cert?: string;
  key?: string;
  pfx?: string;
  keyPassphraseEnv?: string;
}

export function addTransportOptions(command: Command): Command {
  return command
    .option(
      '--http2',
      'require HTTP/2 (negotiated with TLS ALPN): a target that does not offer h2 is an error before the run',
    )
    .option(
      '--cert <file>',
      'client certificate (PEM) for mTLS, presented on token requests and API calls; the file may hold the key too',
    )
    .option('--key <file>', 'private key (PEM) of --cert')
    .option('--pfx <file>', 'client certificate and key as a PKCS#12 (.pfx/.p12) file, instead of --cert/--key')
    .option('--key-passphrase-env <var>', 'environment variable holding the passphrase of an encrypted --key or --pfx');
}
