/**
 * The last step of every request on the reference server: its reply written to the socket, delayed
 * or broken as the config says.
 */
import type { OutgoingHttpHeaders } from 'node:http';
import { constants as http2, Http2ServerResponse } from 'node:http2';
import type { ServerConfig } from './resolved-config.ts';
import { breakEnvelope } from './faults/broken-envelope.ts';
import { Chaos, type ChaosEffect } from './faults/chaos.ts';
import { createRandom, type Random } from './random.ts';
import type { Reply } from './reply.ts';
import type { StatsRecorder } from './stats.ts';
import type { TimerSet } from './timers.ts';

/**
 * Which kind of response is being sent. Added latency applies to everything under /api/;
 * broken-envelope and chaos faults only to method calls (never to token requests, so that a run
 * against a chaotic server still gets its tokens).
 */
export type ReplyKind = 'method' | 'token' | 'other';

/** What the responder uses of a response: an HTTP/1.1 ServerResponse and node:http2's compatibility response alike. */
export interface ReplyStream {
  readonly headersSent: boolean;
  readonly destroyed: boolean;
  readonly socket: { destroy(): void } | null;
  writeHead(status: number, headers: OutgoingHttpHeaders): unknown;
  write(chunk: Buffer): boolean;
  end(chunk: string | Buffer): unknown;
}

/** Number of pieces a `chaos-slow` reply is dripped in. */
const DRIP_PIECES = 30;

/** Writes replies to sockets: the one place where latency, response faults and status counts apply. */
export class Responder {
  readonly #chaos: Chaos;
  readonly #brokenEnvelopeRate: number;
  readonly #envelopeRandom: Random;
  readonly #addedLatencyMs: number;

  constructor(
    config: ServerConfig,
    private readonly stats: StatsRecorder,
    private readonly timers: TimerSet,
  ) {
    this.#chaos = new Chaos(config.faults, config.chaosRate, createRandom(config.seed + 3));
    this.#brokenEnvelopeRate = config.faults.has('broken-envelope') ? config.brokenEnvelopeRate : 0;
    this.#envelopeRandom = createRandom(config.seed + 4);
    this.#addedLatencyMs = config.addedLatencyMs;
  }

  send(res: ReplyStream, reply: Reply, kind: ReplyKind): void {
    let out = reply;
    let effect: ChaosEffect | undefined;
    if (kind === 'method') {
      if (out.breakable === true && this.#brokenEnvelopeRate > 0 && this.#envelopeRandom() < this.#brokenEnvelopeRate) {
        out = breakEnvelope(out, this.#envelopeRandom);
      }
      if (this.#chaos.enabled) effect = this.#chaos.pick(out);
    }
    if (this.#addedLatencyMs > 0 && kind !== 'other')
      this.timers.schedule(() => this.#deliver(res, out, effect), this.#addedLatencyMs);
    else this.#deliver(res, out, effect);
  }

  #deliver(res: ReplyStream, reply: Reply, effect: ChaosEffect | undefined): void {
    // The client may be gone (or a chaos reset already happened): nothing to write to.
    if (res.headersSent || res.destroyed) return;
    if (effect?.kind === 'reset') {
      // HTTP/2: reset just the request's stream, as an error (RST_STREAM INTERNAL_ERROR).
      if (res instanceof Http2ServerResponse) res.stream.close(http2.NGHTTP2_INTERNAL_ERROR);
      else res.socket?.destroy();
      return;
    }
    const out = effect?.kind === 'reply' ? effect.reply : reply;
    const headers: OutgoingHttpHeaders = {
      'Content-Type': out.contentType,
      'Content-Length': Buffer.byteLength(out.body),
      ...out.headers,
    };
    // We stopped reading this request's body (whatever a chaos fault answers instead), so the
    // connection cannot carry another request. (HTTP/2 forbids the header: ending the reply ends
    // just the stream, and the connection carries on.)
    if (reply.close === true && !(res instanceof Http2ServerResponse)) headers.Connection = 'close';
    this.stats.status(out.status);
    res.writeHead(out.status, headers);
    if (effect?.kind === 'drip') this.#drip(res, Buffer.from(out.body), effect.overMs);
    else res.end(out.body);
  }

  /** Write `body` in pieces spread evenly over `overMs`: a slow server, not a stalled one. */
  #drip(res: ReplyStream, body: Buffer, overMs: number): void {
    const pieces = Math.max(1, Math.min(DRIP_PIECES, body.length));
    let piece = 0;
    const step = (): void => {
      if (res.destroyed) return;
      const chunk = body.subarray(
        Math.round((piece * body.length) / pieces),
        Math.round(((piece + 1) * body.length) / pieces),
      );
      piece += 1;
      if (piece === pieces) res.end(chunk);
      else {
        res.write(chunk);
        this.timers.schedule(step, overMs / (pieces - 1));
      }
    };
    step();
  }
}
