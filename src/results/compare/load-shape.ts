/**
 * Do two runs put the same load on the server? Compare and merge refuse (unless --force) when
 * they do not, because their numbers would differ for reasons other than the server. Load shape
 * is: the kind of run (load vs verify), the timing model, the phases (durations, rates,
 * concurrency), the scenario mix, the rate-limit contract and policy, and — for compare — the
 * number and weights of clients. Target, server settings, thresholds and http tuning are not
 * load shape: comparing a slower server against a faster one is the point.
 */
import { sanitizeText } from '../../util/sanitize.ts';
import type { RunResult } from '../../contract/result-schema.ts';

export interface LoadShapeOptions {
  /** Shards of one run differ in their clients by design: merge sets this. */
  readonly ignoreClients?: boolean;
}

const MAX_DIFFERENCES = 12;
const SHAPE_CONFIG_KEYS = ['phases', 'scenarios', 'rateLimit'] as const;

/** A short, terminal-safe rendering of a config value. */
function show(value: unknown): string {
  return value === undefined ? 'absent' : sanitizeText(JSON.stringify(value), 60);
}

/** JSON paths where two JSON-like values differ, with both values. */
function diff(a: unknown, b: unknown, path: string, out: string[]): void {
  if (out.length >= MAX_DIFFERENCES) return;
  const bothObjects = a !== null && b !== null && typeof a === 'object' && typeof b === 'object';
  if (bothObjects && Array.isArray(a) === Array.isArray(b)) {
    if (Array.isArray(a) && Array.isArray(b) && a.length !== b.length) {
      out.push(`${path}: ${a.length} vs ${b.length} entries`);
      return;
    }
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    for (const key of keys) {
      const next = Array.isArray(a) ? `${path}[${key}]` : `${path}.${sanitizeText(key, 40)}`;
      diff((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], next, out);
    }
    return;
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push(`${path}: ${show(a)} vs ${show(b)}`);
}

/** Client count, then (for equal counts) weights — without identities: runs may name clients differently. */
function diffClients(a: unknown, b: unknown, out: string[]): void {
  if (!Array.isArray(a) || !Array.isArray(b)) return diff(a, b, 'config.clients', out);
  if (a.length !== b.length) return diff(a.length, b.length, 'config.clients.count', out);
  const weights = (clients: unknown[]) => clients.map((c) => JSON.stringify((c as { weight?: unknown } | null)?.weight ?? 1)).sort();
  diff(weights(a), weights(b), 'config.clients.weights', out);
}

/** Merged files keep the kind of run they were merged from; an older 'merge' kind is a load run. */
const loadKind = (result: RunResult): string => (result.run.kind === 'merge' ? 'run' : result.run.kind);

/** Every load-shape difference between two runs, as `path: a vs b` lines (empty: same shape). */
export function loadShapeDifferences(a: RunResult, b: RunResult, options: LoadShapeOptions = {}): string[] {
  const out: string[] = [];
  diff(loadKind(a), loadKind(b), 'run.kind', out);
  diff(a.run.model, b.run.model, 'run.model', out);
  for (const key of SHAPE_CONFIG_KEYS) diff(a.config[key], b.config[key], `config.${key}`, out);
  if (!options.ignoreClients) diffClients(a.config.clients, b.config.clients, out);
  const contract = (r: RunResult) => (r.rateLimit ? { limit: r.rateLimit.limit, windowS: r.rateLimit.windowS, policy: r.rateLimit.policy } : null);
  diff(contract(a), contract(b), 'rateLimit', out);
  return out;
}
