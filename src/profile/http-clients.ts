/**
 * The HTTP clients that can carry a load (http.client), and the names they are also known by. A
 * module of its own so that the CLI's `--http-client` flag can name them at start-up without loading
 * the profile schema.
 */
export const HTTP_CLIENTS = ['rpcload', 'undici'] as const;
/** A client by its name (plan.ts's HttpClientName). */
type ClientName = (typeof HTTP_CLIENTS)[number];

/** `fast`: what `rpcload` was called while it was rpcload's HTTP/1.1 client alone; still accepted. */
export const HTTP_CLIENT_ALIASES: Readonly<Record<string, ClientName>> = { fast: 'rpcload' };

/** The client `name` names (its name, or an alias); undefined for none. */
export function httpClientNamed(name: string): ClientName | undefined {
  if ((HTTP_CLIENTS as readonly string[]).includes(name)) return name as ClientName;
  return Object.hasOwn(HTTP_CLIENT_ALIASES, name) ? HTTP_CLIENT_ALIASES[name] : undefined;
}
