/**
 * The `replay` record of a result file written by a replay (`run --replay`, `capacity --replay`):
 * which recording was played (name, size, SHA-256), which part of it, how fast, and what became of
 * its calls. Two replays compare knowingly only when their sources agree: `compare` refuses to call
 * a regression between different ones unless told. Part of `rpcload/result@1`.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';

const Count = Type.Integer({ minimum: 0 });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const ReplaySourceSchema = Type.Object(
  {
    file: Type.String({ description: "the recording's file name (without its directory)" }),
    format: Type.Union([Type.Literal('jsonl'), Type.Literal('har')]),
    bytes: Count,
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$', description: "SHA-256 of the recording's bytes, hex" }),
    speed: Type.Number({ exclusiveMinimum: 0, description: 'recorded offsets were divided by this (a capacity file: the found speed)' }),
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
    skipped: Type.Record(Type.String(), Count, {
      description:
        "calls or records not sent, by reason: the recording's token requests and other URLs, calls whose client could not send (backing off, no token, max in-flight)",
    }),
    callers: Type.Integer({ minimum: 0, description: 'distinct callers in the window' }),
    mappedCallers: Type.Integer({ minimum: 0, description: 'callers sent by another client ID (--map-clients)' }),
    outOfOrder: Type.Integer({ minimum: 0, description: 'calls recorded earlier than the call before them (sent as soon as read)' }),
  },
  { additionalProperties: false, description: 'the recording a replay played (run --replay, capacity --replay)' },
);

export type ReplaySource = Static<typeof ReplaySourceSchema>;
