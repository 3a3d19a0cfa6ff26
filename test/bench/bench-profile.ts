/** The rpcload profiles the bench runs: the bench request, a closed or open load, optional lead phases. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HttpClientName } from '../../src/profile/plan.ts';
import { REQUEST_BODY } from './bench-target.ts';

/** Load of a bench profile's phase. */
export type BenchLoad = { readonly concurrency: number } | { readonly rate: number };

/** A phase before the measured one (e.g. a warm-up), at the same load. */
export interface LeadPhase {
  readonly name: string;
  readonly durationS: number;
}

/**
 * Write an rpcload profile for the bench: `clients` clients (nginx hands each the same token),
 * one scenario with the bench request (POST /api/ping with REQUEST_BODY), the lead phases if any,
 * then the measured phase `load`.
 */
export function writeBenchProfile(
  dir: string,
  name: string,
  target: string,
  options: {
    load: BenchLoad;
    durationS: number;
    clients: number;
    connections: number;
    lead?: readonly LeadPhase[];
    /** rpcload's http.client; null = the profile default. */
    client: HttpClientName | null;
  },
): string {
  const profile = {
    name,
    target,
    clients: { pattern: 'bench-{n}', count: options.clients, secret: 'bench-secret' },
    scenarios: [
      { name: 'ping', steps: [{ method: 'ping', args: JSON.parse(REQUEST_BODY) as Record<string, unknown> }] },
    ],
    phases: [
      ...(options.lead ?? []).map((lead) => ({ name: lead.name, duration: `${lead.durationS}s`, ...options.load })),
      { name: 'load', duration: `${options.durationS}s`, ...options.load },
    ],
    http: { connections: options.connections, ...(options.client === null ? {} : { client: options.client }) },
  };
  const path = join(dir, `${name}.profile.json`);
  writeFileSync(path, JSON.stringify(profile, null, 2));
  return path;
}
