/**
 * The `broken-envelope` fault: success replies with a broken envelope, still HTTP 200 and JSON, for
 * verify's `envelope` check to catch.
 */
import type { Random } from '../random.ts';
import type { Reply } from '../reply.ts';

const SUCCESS_PREFIX = '{"status":"success","data":';

/** Ways to break a success envelope while keeping HTTP 200 and `application/json`. */
const BREAKS: readonly ((dataJson: string) => string)[] = [
  (data) => `{"status":"ok","data":${data}}`, // unknown status value
  (data) => `{"data":${data}}`, // no status
  () => '{"status":"success"}', // success without data
  () => '{"status":"success","data":"done"}', // data not an object
  (data) => `${SUCCESS_PREFIX}${data}`, // truncated: not JSON at all
];

/** The `broken-envelope` fault applied to one success reply (same status, headers and data). */
export function breakEnvelope(reply: Reply, random: Random): Reply {
  const body = reply.body.toString();
  if (!body.startsWith(SUCCESS_PREFIX)) return reply;
  const dataJson = body.slice(SUCCESS_PREFIX.length, -1);
  const breakIt = BREAKS[Math.floor(random() * BREAKS.length)]!;
  return { ...reply, body: breakIt(dataJson), breakable: false };
}
