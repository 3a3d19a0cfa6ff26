/**
 * W3C trace context (https://www.w3.org/TR/trace-context/) for the load's requests: the trace id of
 * each iteration (its pagination walk and its steps share it), a span id per request, the sampled
 * flag, and the `traceparent` header value itself.
 *
 * Ids are reproducible and unique at once. A trace id is a keyed bijection of (stream, counter):
 * the stream names the thread that drew it (shard and worker, see TracePlan.stream) and the counter
 * counts that thread's traces, so two ids of one run can only be equal if their stream and counter
 * are; the keys come from the run's seed, so the same seed sends the same ids. (Shards that were
 * given no common seed draw their keys apart: their ids are then random 128-bit values that collide
 * with a probability of about n² / 2^97.) Span ids are the same construction over a span counter.
 *
 * The hot path: ids are plain 32-bit words kept in the iteration and the request's context, and the
 * header is written as hex into one reused buffer and read back as a single latin1 string — one
 * string allocation per request, no closure, no BigInt.
 */
import type { TraceContextMode, TracePlan } from '../profile/plan.ts';
import { TOOL } from '../version.ts';
import { createRandom } from '../util/random.ts';

/** The user agent of every API request; token requests add " token-request". */
export const USER_AGENT = `${TOOL.name}/${TOOL.version}`;

/** A trace: its id as four 32-bit words (most significant first) and its sampled flag. */
export interface TraceWords {
  trace0: number;
  trace1: number;
  trace2: number;
  trace3: number;
  traceSampled: boolean;
}

/** A span id as two 32-bit words. */
export interface SpanWords {
  span0: number;
  span1: number;
}

/** A 32-bit bijection (the murmur3 finalizer): distinct inputs give distinct outputs. */
function mix32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
/** Hex digit pairs as two latin1 bytes each, for writing into the header buffer. */
const HEX_CODES = new Uint16Array(256);
for (let i = 0; i < 256; i++) HEX_CODES[i] = HEX[i]!.charCodeAt(0) | (HEX[i]!.charCodeAt(1) << 8);

/** `00-` + 32 hex + `-` + 16 hex + `-` + 2 hex. */
const TRACEPARENT_LENGTH = 55;

/** Draws a run's trace and span ids and writes `traceparent` values. One per engine (thread). */
export class TraceIds {
  private readonly keys = new Uint32Array(8);
  private readonly streamWord: number;
  private traces = 0;
  private spans = 0;
  /** Below this value of a trace's last word, the trace is sampled. */
  private readonly sampledBelow: number;
  /** The header being written; exists only so that no request allocates more than its string. */
  private readonly header = Buffer.from('00-00000000000000000000000000000000-0000000000000000-00', 'latin1');

  constructor(plan: Pick<TracePlan, 'seed' | 'stream' | 'sampleRatio'>) {
    const random = createRandom(plan.seed ^ 0x5eed7ace);
    for (let i = 0; i < this.keys.length; i++) this.keys[i] = Math.floor(random() * 4_294_967_296);
    this.streamWord = mix32((plan.stream ^ this.keys[0]!) >>> 0);
    this.sampledBelow = Math.round(Math.min(1, Math.max(0, plan.sampleRatio)) * 4_294_967_296);
  }

  /** Fill `into` with the next trace (a new iteration's). */
  nextTrace(into: TraceWords): void {
    const n = this.traces++;
    const k = this.keys;
    const lo = mix32((n >>> 0) ^ k[1]!);
    const hi = mix32(Math.floor(n / 4_294_967_296) ^ k[2]!);
    // Each later word mixes in the earlier ones; the first three alone already identify (stream, n).
    into.trace0 = (this.streamWord ^ mix32((lo + k[3]!) >>> 0)) >>> 0;
    into.trace1 = (hi ^ mix32((lo ^ k[4]!) >>> 0)) >>> 0;
    into.trace2 = lo;
    into.trace3 = mix32((into.trace0 ^ into.trace1 ^ lo ^ k[5]!) >>> 0) || 1;
    into.traceSampled = into.trace3 < this.sampledBelow;
  }

  /** Fill `into` with the next span id. */
  nextSpan(into: SpanWords): void {
    const n = this.spans++;
    const lo = mix32((n >>> 0) ^ this.keys[6]!);
    into.span0 = (this.streamWord ^ mix32((Math.floor(n / 4_294_967_296) + lo + this.keys[7]!) >>> 0)) >>> 0;
    into.span1 = lo || 1;
  }

  /** The `traceparent` value (version 00) of span `span` in trace `trace`: one string. */
  traceparent(trace: TraceWords, span: SpanWords): string {
    const b = this.header;
    writeWord(b, 3, trace.trace0);
    writeWord(b, 11, trace.trace1);
    writeWord(b, 19, trace.trace2);
    writeWord(b, 27, trace.trace3);
    writeWord(b, 36, span.span0);
    writeWord(b, 44, span.span1);
    b[54] = trace.traceSampled ? 0x31 : 0x30; // '1' | '0'
    return b.toString('latin1', 0, TRACEPARENT_LENGTH);
  }
}

function writeWord(b: Buffer, at: number, word: number): void {
  writeByte(b, at, word >>> 24);
  writeByte(b, at + 2, (word >>> 16) & 0xff);
  writeByte(b, at + 4, (word >>> 8) & 0xff);
  writeByte(b, at + 6, word & 0xff);
}

function writeByte(b: Buffer, at: number, byte: number): void {
  const code = HEX_CODES[byte]!;
  b[at] = code & 0xff;
  b[at + 1] = code >>> 8;
}

/**
 * The headers every request of a run carries besides its traceparent, as undici's flat
 * name/value list: the user agent, the configured tracestate and the run id baggage.
 */
export function staticTraceHeaders(plan: TracePlan, userAgent: string): string[] {
  const headers = ['user-agent', userAgent];
  if (plan.mode !== 'off' && plan.tracestate !== null) headers.push('tracestate', plan.tracestate);
  if (plan.baggageRunId && plan.runId !== null)
    headers.push('baggage', `rpcload.run=${encodeURIComponent(plan.runId)}`);
  return headers;
}

/** Whether a request of `trace` carries a traceparent under `mode`. */
export function carriesTraceparent(mode: TraceContextMode, trace: TraceWords): boolean {
  return mode === 'always' || (mode === 'sampled' && trace.traceSampled);
}

/**
 * The headers of one token request attempt, a trace of its own: its traceparent (sampled like any
 * trace), a user agent that names it, and `baggage: rpcload.request=token` (with the run id when
 * asked for), so a tracing backend can tell token requests from API calls.
 */
export function tokenTraceHeaders(plan: TracePlan, ids: TraceIds): Record<string, string> {
  const headers: Record<string, string> = { 'user-agent': `${USER_AGENT} token-request` };
  const baggage = ['rpcload.request=token'];
  if (plan.baggageRunId && plan.runId !== null) baggage.push(`rpcload.run=${encodeURIComponent(plan.runId)}`);
  headers.baggage = baggage.join(',');
  if (plan.mode === 'off') return headers;
  const trace: TraceWords = { trace0: 0, trace1: 0, trace2: 0, trace3: 0, traceSampled: false };
  const span: SpanWords = { span0: 0, span1: 0 };
  ids.nextTrace(trace);
  ids.nextSpan(span);
  if (!carriesTraceparent(plan.mode, trace)) return headers;
  headers.traceparent = ids.traceparent(trace, span);
  if (plan.tracestate !== null) headers.tracestate = plan.tracestate;
  return headers;
}
