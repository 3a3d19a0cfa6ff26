/** The server every bench section loads: its base URL, what it is, and how to stop it. */
export interface BenchTarget {
  readonly kind: 'nginx' | 'raw-socket responder';
  /** e.g. "nginx/1.22.1, 1 worker". */
  readonly description: string;
  readonly url: string;
  readonly pid: number;
  close(): Promise<void>;
}

/** The bench's API conventions: the success envelope every API method answers, and the token one. */
export const SUCCESS_BODY = '{"status":"success","data":{"pong":true}}';
export const TOKEN_BODY =
  '{"status":"success","data":{"access_token":"bench","token_type":"Bearer","expires_in":3600}}';
/** The token nginx hands every client (tokens are not checked: the target is a fixed responder). */
export const BENCH_TOKEN = 'bench';
/** The one request both tools send. */
export const REQUEST_PATH = '/api/ping';
export const REQUEST_BODY = '{"message":"hello","n":1}';
