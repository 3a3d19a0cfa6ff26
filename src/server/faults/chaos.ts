/**
 * The `chaos-*` faults: responses a sound API never sends (garbage, resets, huge or slow replies,
 * terminal escapes, a proxy's HTML error page).
 */
import type { FaultName } from '../options.ts';
import type { Random } from '../random.ts';
import { errorReply, JSON_TYPE, type Reply } from '../reply.ts';

/** Size of the `chaos-huge` reply. */
export const HUGE_REPLY_BYTES = 5 * 1024 * 1024;
/** How long `chaos-slow` takes to drip a reply out. */
export const DRIP_DURATION_MS = 3000;

/** What a chaos fault does to one response instead of sending it normally. */
export type ChaosEffect =
  | { readonly kind: 'reply'; readonly reply: Reply }
  | { readonly kind: 'reset' }
  | { readonly kind: 'drip'; readonly reply: Reply; readonly overMs: number };

/** An error code full of terminal escapes: clear screen, retitle the window, a hyperlink, red text. */
const ESCAPE_CODE =
  '\u001b[2J\u001b[H\u001b]0;rpcload was here\u0007\u001b]8;;https://example.invalid\u001b\\unexpected_error\u001b]8;;\u001b\\\u001b[31m';
const HTML_502 =
  '<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>\n';

let hugeBody: Buffer | undefined;
/** A valid success envelope of exactly HUGE_REPLY_BYTES bytes (built once, on first use). */
function hugeReply(): Reply {
  if (hugeBody === undefined) {
    const open = '{"status":"success","data":{"padding":"';
    const close = '"}}';
    hugeBody = Buffer.alloc(HUGE_REPLY_BYTES, 'x');
    hugeBody.write(open, 0);
    hugeBody.write(close, HUGE_REPLY_BYTES - close.length);
  }
  return { status: 200, contentType: JSON_TYPE, body: hugeBody };
}

type ChaosFault = Extract<FaultName, `chaos-${string}`>;

const EFFECTS: Readonly<Record<ChaosFault, (random: Random, reply: Reply) => ChaosEffect>> = {
  'chaos-garbage': (random) => {
    const bytes = Buffer.alloc(16 + Math.floor(random() * 496));
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(random() * 256);
    return { kind: 'reply', reply: { status: 200, contentType: 'text/plain', body: bytes } };
  },
  'chaos-reset': () => ({ kind: 'reset' }),
  'chaos-huge': () => ({ kind: 'reply', reply: hugeReply() }),
  'chaos-slow': (_random, reply) => ({ kind: 'drip', reply, overMs: DRIP_DURATION_MS }),
  'chaos-escapes': () => ({ kind: 'reply', reply: errorReply(500, ESCAPE_CODE) }),
  'chaos-html-502': () => ({
    kind: 'reply',
    reply: { status: 502, contentType: 'text/html; charset=utf-8', body: HTML_502 },
  }),
};

/**
 * The chaos faults that are on, each hitting a share `rate` of API responses (independent draws
 * from a seeded stream, in catalogue order; the first hit wins).
 */
export class Chaos {
  readonly #active: readonly ChaosFault[];

  constructor(
    faults: ReadonlySet<FaultName>,
    private readonly rate: number,
    private readonly random: Random,
  ) {
    this.#active = (Object.keys(EFFECTS) as ChaosFault[]).filter((name) => faults.has(name));
  }

  get enabled(): boolean {
    return this.#active.length > 0 && this.rate > 0;
  }

  /** The effect for this response, or undefined to send it normally. */
  pick(reply: Reply): ChaosEffect | undefined {
    for (const name of this.#active) if (this.random() < this.rate) return EFFECTS[name](this.random, reply);
    return undefined;
  }
}
