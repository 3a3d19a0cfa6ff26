/** The shape of a reference server method: what it is given about its call, and what it returns. */
import type { Reply } from '../reply.ts';

/** What a method sees of its call besides the arguments. */
export interface CallContext {
  /** Time the call was admitted (ms, the server's clock). */
  readonly nowMs: number;
  readonly clientId: string;
  /** A delay the server can cancel on close. */
  readonly sleep: (delayMs: number) => Promise<void>;
}

/** An API method: arguments (a JSON object) in, reply out. A throw becomes 500 unexpected_error. */
export type MethodHandler = (args: Record<string, unknown>, call: CallContext) => Reply | Promise<Reply>;
