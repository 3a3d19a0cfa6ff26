/**
 * A result file's histograms: decoding one, with a corrupt encoding turned into the one-line user
 * error (exit 2) that names where it was (`base.json: histograms.byMethod["ping"].latency`), and
 * checking that they describe the same requests as the file's counts. Every request is
 * recorded in the overall, per-method, per-phase, per-outcome and per-client histograms, and every
 * token request in the token histogram. Histograms swapped in from another run (or another
 * section) decode fine and pass the schema, but would turn every percentile that compare, merge
 * and report compute from them into another run's figures; their total counts give them away.
 */
import type { Histograms, RunResult } from '../contract/result-schema.ts';
import { OUTCOME_UNANSWERED } from '../api/outcome.ts';
import { RpcloadError } from '../errors.ts';
import { decodeHistogram, type Histogram } from '../metrics/hdr.ts';

/** Decode a histogram of a result file; `where` names it in the error when it does not decode. */
export function decodeHistogramAt(encoded: string, where: string): Histogram {
  try {
    return decodeHistogram(encoded);
  } catch {
    throw new RpcloadError(
      'bad_result',
      `${where}: expected an HdrHistogram (compressed base64), found data that does not decode`,
    );
  }
}

interface Expected {
  readonly pointer: string;
  readonly encoded: string;
  readonly countPointer: string;
  readonly count: number;
}

const escape = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

function expectations(result: RunResult): Expected[] {
  const h: Histograms = result.histograms;
  const out: Expected[] = [];
  for (const kind of ['latency', 'serviceTime'] as const) {
    out.push({
      pointer: `/histograms/${kind}`,
      encoded: h[kind],
      countPointer: '/summary/requests',
      count: result.summary.requests,
    });
  }
  if (h.tokens !== undefined) {
    const count = result.summary.tokens.requests;
    out.push({ pointer: '/histograms/tokens', encoded: h.tokens, countPointer: '/summary/tokens/requests', count });
  }
  // Schedule lag is recorded for every request of an open-model phase (closed-model phases have none).
  const lagPhases = Object.entries(h.scheduleLagByPhase ?? {});
  for (const [phase, encoded] of lagPhases) {
    const countPointer = `/byPhase/${escape(phase)}/requests`;
    out.push({
      pointer: `/histograms/scheduleLagByPhase/${escape(phase)}`,
      encoded,
      countPointer,
      count: result.byPhase[phase]?.requests ?? -1,
    });
  }
  if (h.scheduleLag !== undefined && lagPhases.length > 0) {
    const count = lagPhases.reduce((sum, [phase]) => sum + (result.byPhase[phase]?.requests ?? 0), 0);
    out.push({
      pointer: '/histograms/scheduleLag',
      encoded: h.scheduleLag,
      countPointer: '/byPhase/*/requests',
      count,
    });
  }
  for (const section of ['byMethod', 'byPhase', 'byOutcome', 'byClient'] as const) {
    for (const [key, pair] of Object.entries(h[section])) {
      const stats = result[section][key];
      const countPointer = `/${section}/${escape(key)}/requests`;
      for (const kind of ['latency', 'serviceTime'] as const) {
        out.push({
          pointer: `/histograms/${section}/${escape(key)}/${kind}`,
          encoded: pair[kind],
          countPointer,
          count: stats?.requests ?? -1,
        });
      }
    }
  }
  return out;
}

/**
 * The first histogram whose total count disagrees with the count the file records for it, as one
 * line (`/histograms/byMethod/ping/latency: holds 460 values, but /byMethod/ping/requests is 230 …`);
 * null when they all agree. A corrupt encoding throws the one-line error of decodeHistogramAt.
 */
export function histogramCountProblem(result: RunResult, label: string): string | null {
  // Requests that ended without a response may be counted without a latency to record.
  const unanswered = result.byOutcome[OUTCOME_UNANSWERED]?.requests ?? 0;
  for (const { pointer, encoded, countPointer, count } of expectations(result)) {
    if (count < 0)
      return `${pointer}: a histogram for ${countPointer.replace(/\/requests$/, '')}, which the file does not have`;
    const held = decodeHistogramAt(encoded, `${label}: ${pointer}`).totalCount;
    if (held > count || held < count - unanswered)
      return `${pointer}: holds ${held} values, but ${countPointer} is ${count} (histograms from another run or section?)`;
  }
  return null;
}
