/**
 * Request recording: each finished request becomes one Sample for the recorder — its method,
 * phase and client, outcome, timings (latency from the due time in the open model, from the send
 * in the closed one), Retry-After and back-off mark, and its trace and span ids (for exemplars). One Sample record is refilled for every
 * request: the recorder copies what it keeps before `write` returns.
 */
import type { Recorder } from '../metrics/recorder.ts';
import { TRACE_SAMPLED, TRACE_SENT } from '../metrics/exemplars.ts';
import { NO_BACKOFF, NO_LAG, type Sample } from '../metrics/sample.ts';
import { RETRY_AFTER_ABSENT } from '../api/retry-after.ts';
import type { InFlightRequest } from './in-flight-request.ts';
import { currentStep, type RequestContext } from './iteration.ts';
import type { RequestOutcome } from './request-outcome.ts';

type MutableSample = { -readonly [K in keyof Sample]: Sample[K] };

export class SampleWriter {
  private readonly sample: MutableSample = {
    methodIndex: 0,
    stepIndex: 0,
    phaseIndex: 0,
    clientIndex: 0,
    replicaIndex: 0,
    outcome: '',
    status: 0,
    sentAtMs: 0,
    doneAtMs: 0,
    latencyUs: 0,
    serviceUs: 0,
    lagUs: NO_LAG,
    retryAfterS: RETRY_AFTER_ABSENT,
    backoffWaitedMs: NO_BACKOFF,
    backoffRetryAfterS: NO_BACKOFF,
    detail: '',
    trace0: 0,
    trace1: 0,
    trace2: 0,
    trace3: 0,
    span0: 0,
    span1: 0,
    traceFlags: 0,
  };

  constructor(private readonly recorder: Recorder) {}

  /** Record `request`, finished at `doneAtMs` (run clock) with `outcome`. */
  write(request: InFlightRequest<RequestContext>, outcome: RequestOutcome, doneAtMs: number): void {
    const { iteration, intendedMs, backoff } = request.context;
    const it = iteration!;
    const openModel = it.model === 'open';
    const s = this.sample;
    const step = currentStep(it);
    s.methodIndex = step.methodIndex;
    s.stepIndex = step.stepIndex;
    s.phaseIndex = it.phaseIndex;
    s.clientIndex = it.client.index;
    s.replicaIndex = request.route;
    s.outcome = outcome.outcome;
    s.status = request.error === null ? request.status : 0;
    s.sentAtMs = request.sentAtMs;
    s.doneAtMs = doneAtMs;
    s.serviceUs = (doneAtMs - request.sentAtMs) * 1000;
    s.latencyUs = openModel ? (doneAtMs - intendedMs) * 1000 : s.serviceUs;
    s.lagUs = openModel ? Math.max(0, request.dispatchedAtMs - intendedMs) * 1000 : NO_LAG;
    s.retryAfterS = outcome.retryAfterS;
    s.backoffWaitedMs = backoff === null ? NO_BACKOFF : backoff.waitedMs;
    s.backoffRetryAfterS = backoff === null ? NO_BACKOFF : backoff.retryAfterS;
    s.detail = outcome.detail;
    s.trace0 = it.trace0;
    s.trace1 = it.trace1;
    s.trace2 = it.trace2;
    s.trace3 = it.trace3;
    s.span0 = request.context.span0;
    s.span1 = request.context.span1;
    s.traceFlags = (it.traceSampled ? TRACE_SAMPLED : 0) | (request.context.traceparent !== null ? TRACE_SENT : 0);
    this.recorder.record(s);
  }
}
