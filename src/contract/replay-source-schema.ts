/**
 * The `replay` record of a result file written by a replay (`run --replay`, `capacity --replay`):
 * which recording was played (name, size, SHA-256), which part of it, how fast, and what became of
 * its calls. Two replays compare knowingly only when their sources agree: `compare` refuses to call
 * a regression between different ones unless told. Part of `rpcload/result@1`.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';

const Count = Type.Integer({ minimum: 0 });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const SKIPPED =
  "calls or records not sent, by reason: the recording's token requests and other URLs, a HAR's calls to " +
  'other hosts and bodies that are not JSON args, calls whose client could not send (backing off, no token, ' +
  'max in-flight), calls of a recording that changed during the run';
const OUT_OF_ORDER =
  "the recording's own disorder: each such call was due with the call before it (it cannot pass it), so its " +
  'wait is neither latency nor schedule lag';

export const ReplaySourceSchema = Type.Object(
  {
    file: Type.String({ description: "the recording's file name (without its directory)" }),
    format: Type.Union([Type.Literal('jsonl'), Type.Literal('har')]),
    bytes: Count,
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$', description: "SHA-256 of the recording's bytes, hex" }),
    speed: Type.Number({
      exclusiveMinimum: 0,
      description: 'recorded offsets were divided by this (a capacity file: the found speed)',
    }),
    loop: Type.Boolean(),
    window: Type.Object(
      {
        fromMs: Type.Number({ minimum: 0, description: "ms since the recording's first call" }),
        toMs: Nullable(Type.Number({ minimum: 0, description: 'exclusive; null = after its last call' })),
      },
      { additionalProperties: false },
    ),
    maxCalls: Nullable(Count),
    calls: Type.Integer({ minimum: 0, description: 'calls read from the recording (all of it)' }),
    callsInWindow: Count,
    sent: Type.Integer({ minimum: 0, description: 'calls sent (requests made)' }),
    skipped: Type.Record(Type.String(), Count, { description: SKIPPED }),
    callers: Type.Integer({ minimum: 0, description: 'distinct callers in the window' }),
    mappedCallers: Type.Integer({ minimum: 0, description: 'callers sent by another client ID (--map-clients)' }),
    outOfOrder: Type.Object(
      {
        calls: Type.Integer({ minimum: 0, description: 'window calls recorded earlier than a call before them' }),
        maxMs: Type.Number({ minimum: 0, description: 'how much earlier at most (ms)' }),
      },
      { additionalProperties: false, description: OUT_OF_ORDER },
    ),
  },
  { additionalProperties: false, description: 'the recording a replay played (run --replay, capacity --replay)' },
);

export type ReplaySource = Static<typeof ReplaySourceSchema>;
