/**
 * The HTTP clients that can carry a load (http.client). A module of its own so that the CLI's
 * `--http-client` flag can name them at start-up without loading the profile schema.
 */
export const HTTP_CLIENTS = ['fast', 'undici'] as const;
