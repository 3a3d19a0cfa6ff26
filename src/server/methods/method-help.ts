/**
 * The reference server's API methods as users read them: name, arguments → reply, errors. The
 * method table (registry.ts) is typed by these names and `serve --help` prints this list, so the
 * two cannot drift apart.
 */
import { DEMO_PASSWORD } from '../defaults.ts';

export interface MethodHelp {
  readonly name: string;
  /** One line: arguments → data, and the method's own errors. */
  readonly summary: string;
}

export const METHOD_HELP = [
  { name: 'ping', summary: '→ {pong: true}' },
  { name: 'echo', summary: 'any object → the same object' },
  { name: 'items.list', summary: '{filter?, pageSize?, next?} → {items, next}: paginated, next null at the end' },
  { name: 'work', summary: '{delayMs?} → {delayMs}, after a log-normal latency (or delayMs)' },
  { name: 'flaky', summary: '→ {ok: true}, or 500 unexpected_error at --flaky-rate' },
  { name: 'orders.create', summary: '{item?, qty?} → the order {id, state: "open", item, qty, items}' },
  { name: 'orders.get', summary: '{id} → the order; 404 not_found unless the caller created it' },
  { name: 'orders.cancel', summary: '{id} → the order, state "cancelled"; 409 invalid_state if it already is' },
  { name: 'orders.delete', summary: '{id} → {id, deleted: true}; the order is then not_found' },
  { name: 'catalog.search', summary: '{q?, pageSize?, next?} → {items: [{sku, name, category, price}], next}' },
  { name: 'catalog.get', summary: '{sku} → {sku, name, category, price}; 404 not_found for an unknown sku' },
  {
    name: 'accounts.login',
    summary: `{username, password} → {session, user}; password "${DEMO_PASSWORD}", else 400 invalid_credentials`,
  },
] as const satisfies readonly MethodHelp[];

export type MethodName = (typeof METHOD_HELP)[number]['name'];
