/**
 * `ratelimit.response`: every refusal is HTTP 429 with Retry-After seconds and the
 * rate_limit_exceeded envelope.
 */
import type { RetryAfter } from '../../api/retry-after.ts';
import { fail, pass, skip, type Verdict } from '../verdict.ts';

export interface RefusalSample {
  /** ms since the check started. */
  readonly atMs: number;
  readonly status: number;
  readonly contentType: string | null;
  readonly retryAfter: RetryAfter;
  /** The envelope's kind as classified (invalid = not an envelope at all). */
  readonly envelope: 'success' | 'error' | 'invalid';
  readonly errorCode: string | null;
  /** Envelope rules the body broke. */
  readonly violations: readonly string[];
  /** Sanitized start of the body. */
  readonly bodyExcerpt: string;
}

export interface ResponseObservation {
  /** Admitted requests before the first refusal. */
  readonly admittedBefore: number;
  /** Set when no refusal came because requests could not be sent faster than the limit. */
  readonly tooSlow: string | null;
  readonly stop: 'refused' | 'failed' | 'cap';
  /** Outcome of the request that got no limiter verdict (stop = failed). */
  readonly failedOutcome: string | null;
  readonly refusals: readonly RefusalSample[];
  /** Informational notes about RateLimit / X-RateLimit headers. */
  readonly headerNotes: readonly string[];
}

function retryAfterText(retryAfter: RetryAfter): string {
  switch (retryAfter.form) {
    case 'delta':
      return String(retryAfter.seconds);
    case 'date':
      return `HTTP-date (${retryAfter.seconds} s)`;
    case 'missing':
      return 'missing';
    case 'invalid':
      return JSON.stringify(retryAfter.raw);
  }
}

/** What is wrong with one refusal (empty when it follows the conventions). */
function refusalProblems(sample: RefusalSample): string[] {
  const problems: string[] = [];
  if (sample.status !== 429) problems.push(`refused with HTTP ${sample.status}, expected 429`);
  if (sample.retryAfter.form === 'missing') problems.push('no Retry-After header');
  else if (sample.retryAfter.form === 'invalid')
    problems.push(
      sample.retryAfter.repeated !== undefined
        ? `${sample.retryAfter.repeated} Retry-After headers (${sample.retryAfter.raw}): unusable, it is a singleton field`
        : sample.retryAfter.tooLong
          ? `Retry-After ${retryAfterText(sample.retryAfter)} asks for a wait of over a day (not followed)`
          : `Retry-After ${retryAfterText(sample.retryAfter)} is not a number of seconds`,
    );
  else if (sample.retryAfter.form === 'date')
    problems.push('Retry-After is an HTTP-date; the conventions promise a number of seconds');
  if (sample.envelope !== 'error' || sample.errorCode !== 'rate_limit_exceeded') {
    const found =
      sample.envelope === 'invalid'
        ? `${sample.violations.join(', ')}: ${JSON.stringify(sample.bodyExcerpt)}`
        : `${sample.envelope} envelope${sample.errorCode ? ` with error ${JSON.stringify(sample.errorCode)}` : ''}`;
    problems.push(`body is not {"status":"error","error":"rate_limit_exceeded"} (${found})`);
  } else if (sample.violations.length > 0) problems.push(sample.violations.join(', '));
  return problems;
}

export function judgeResponse(obs: ResponseObservation): Verdict {
  const evidence = {
    admittedBeforeFirstRefusal: obs.admittedBefore,
    refusals: obs.refusals.map((r) => ({
      atMs: r.atMs,
      status: r.status,
      contentType: r.contentType,
      retryAfter: retryAfterText(r.retryAfter),
      body: r.bodyExcerpt,
    })),
  };
  if (obs.stop === 'failed')
    return skip(
      'target_broken',
      `a request got no verdict from the limiter (${obs.failedOutcome ?? 'unknown'}) before any refusal`,
      evidence,
    );
  if (obs.refusals.length === 0 && obs.tooSlow !== null) return skip('inconclusive', obs.tooSlow, evidence);
  if (obs.refusals.length === 0)
    return fail(`no refusal after ${obs.admittedBefore} requests sent back to back`, evidence, obs.headerNotes);
  const problems = [...new Set(obs.refusals.flatMap(refusalProblems))];
  if (problems.length > 0) return fail(problems.join('; '), { ...evidence, problems }, obs.headerNotes);
  const retryAfters = [...new Set(obs.refusals.map((r) => retryAfterText(r.retryAfter)))].join(', ');
  return pass(
    `${obs.refusals.length} refusal(s): HTTP 429, Retry-After ${retryAfters} s, body {"status":"error","error":"rate_limit_exceeded"}`,
    evidence,
    obs.headerNotes,
  );
}
