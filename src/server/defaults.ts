/**
 * The reference server's defaults that `rpcload serve --help` prints. Plain values, importing
 * nothing: the CLI's command declarations read them at every start, and importing them from the
 * modules that use them loaded those modules' dependencies too (node:crypto among them, ~8 ms).
 */

/** The password every username signs in with (`accounts.login`): a demo, like the demo client secret. */
export const DEMO_PASSWORD = 'demo-password';

/** Default most orders kept at once (the oldest is forgotten past it). */
export const DEFAULT_MAX_ORDERS = 100_000;

/** Parallel servers of the service-capacity model unless `workers` says otherwise. */
export const DEFAULT_CAPACITY_WORKERS = 4;

/** The demo client pattern used when no `clients` are given: any `client-…` ID, secret `demo-secret`. */
export const DEMO_CLIENT_PATTERN = { prefix: 'client-', secret: 'demo-secret' } as const;

/**
 * The prefixes the demo secret opens: the demo's `client-…`, the bundled smoke profile's `smoke-…`,
 * and those of the bundled and documented examples (`app-…`, `web-…`, `ord-…`, `admin-…`,
 * `user-…`), so e.g. `SMOKE_SECRET=demo-secret rpcload run profiles/smoke.json --target URL` works
 * against a default `rpcload serve`. A list, not "any ID": a mistyped client ID is still refused.
 */
const EXAMPLE_CLIENT_PREFIXES = ['app-', 'web-', 'ord-', 'admin-', 'user-'] as const;
export const DEMO_CLIENT_PREFIXES = [DEMO_CLIENT_PATTERN.prefix, 'smoke-', ...EXAMPLE_CLIENT_PREFIXES] as const;
