/**
 * Certificates for TLS tests, made fresh with `selfsigned` (no key files in the repository): a
 * CA, a server certificate for 127.0.0.1 issued by it, client certificates issued by it (mTLS),
 * and a second, unrelated CA whose client certificates a server trusting the first must refuse.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { generate } from 'selfsigned';

export interface Pem {
  readonly cert: string;
  readonly key: string;
}

const day = (): { notBeforeDate: Date; notAfterDate: Date } => {
  const notBeforeDate = new Date(Date.now() - 60_000);
  return { notBeforeDate, notAfterDate: new Date(notBeforeDate.getTime() + 24 * 3_600_000) };
};

/** A CA certificate and its key. */
export async function testCa(name = 'rpcload test CA'): Promise<Pem> {
  const pems = await generate([{ name: 'commonName', value: name }], {
    keyType: 'ec',
    algorithm: 'sha256',
    ...day(),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

/** A server certificate for 127.0.0.1 and localhost, issued by `ca`. */
export async function serverCertificate(ca: Pem): Promise<Pem> {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    ...day(),
    ca: { key: ca.key, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

/** A client certificate for `commonName`, issued by `ca`; its key encrypted when `passphrase` is given. */
export async function clientCertificate(ca: Pem, commonName: string, passphrase?: string): Promise<Pem> {
  const pems = await generate([{ name: 'commonName', value: commonName }], {
    keyType: 'ec',
    algorithm: 'sha256',
    ...day(),
    ca: { key: ca.key, cert: ca.cert },
    ...(passphrase === undefined ? {} : { passphrase }),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true },
      { name: 'extKeyUsage', clientAuth: true },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

/** A temp directory for files a test writes (PEM files, profiles), removed by `remove()`. */
export class TempDir {
  readonly path = mkdtempSync(join(tmpdir(), 'rpcload-tls-'));

  /** Write `text` to `name` inside the directory; returns its path. */
  write(name: string, text: string): string {
    const file = join(this.path, name);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    return file;
  }

  remove(): void {
    rmSync(this.path, { recursive: true, force: true });
  }
}
