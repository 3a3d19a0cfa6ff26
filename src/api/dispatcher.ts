/**
 * Client-side HTTP connections: the undici Agent and TLS connect options, built from one set of
 * limits, timeouts and trust settings.
 */
import { Agent } from 'undici';
import { interimTolerantConnector } from './interim-responses.ts';

/** Connection settings shared by every client-side HTTP user (verify, tokens, the driver's pools). */
export interface DispatcherOptions {
  /** Max connections per origin; null/undefined = unlimited (verify bursts need many at once). */
  readonly connections?: number | null;
  readonly pipelining?: number;
  readonly connectTimeoutMs?: number;
  readonly headersTimeoutMs?: number;
  readonly bodyTimeoutMs?: number;
  /** Extra CA certificate (PEM) to trust for https targets. */
  readonly ca?: string | null;
  /** Skip certificate verification (self-signed test servers). */
  readonly insecure?: boolean;
}

/** undici's `connect` options for the TLS trust settings (also used by the driver's Pool). */
export function connectOptions(options: DispatcherOptions): { timeout: number; ca?: string; rejectUnauthorized: boolean } {
  return {
    timeout: options.connectTimeoutMs ?? 10_000,
    ...(options.ca ? { ca: options.ca } : {}),
    rejectUnauthorized: options.insecure !== true,
  };
}

/** An undici Agent (a Pool per origin) with keep-alive and the given limits; unsolicited 1xx responses are skipped. */
export function createDispatcher(options: DispatcherOptions = {}): Agent {
  return new Agent({
    connections: options.connections ?? null,
    pipelining: options.pipelining ?? 1,
    headersTimeout: options.headersTimeoutMs ?? 10_000,
    bodyTimeout: options.bodyTimeoutMs ?? 10_000,
    connect: interimTolerantConnector(connectOptions(options)),
  });
}
