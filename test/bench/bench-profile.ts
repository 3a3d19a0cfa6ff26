import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REQUEST_BODY } from './bench-target.ts';

/** Load of the one phase of a bench profile. */
export type BenchLoad = { readonly concurrency: number } | { readonly rate: number };

/**
 * Write an rpcload profile for the bench: `clients` clients (nginx hands each the same token),
 * one scenario with the bench request (POST /api/ping with REQUEST_BODY), one phase.
 */
export function writeBenchProfile(dir: string, name: string, target: string, options: { load: BenchLoad; durationS: number; clients: number; connections: number }): string {
  const profile = {
    name,
    target,
    clients: { pattern: 'bench-{n}', count: options.clients, secret: 'bench-secret' },
    scenarios: [{ name: 'ping', steps: [{ method: 'ping', args: JSON.parse(REQUEST_BODY) as Record<string, unknown> }] }],
    phases: [{ name: 'load', duration: `${options.durationS}s`, ...options.load }],
    http: { connections: options.connections },
  };
  const path = join(dir, `${name}.profile.json`);
  writeFileSync(path, JSON.stringify(profile, null, 2));
  return path;
}
