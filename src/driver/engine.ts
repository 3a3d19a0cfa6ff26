/**
 * The load engine: starts scenario iterations on a client, sends each step through undici's
 * dispatch API, classifies every response into one Sample for the recorder, and walks the
 * iteration on (next page, next step after think time). Schedulers (open or closed model) only
 * decide *when* an iteration starts; everything per request happens here.
 */
import { ResponseClassifier } from '../api/envelope.ts';
import {
  OUTCOME_BODY_TOO_LARGE,
  OUTCOME_SIGN_ERROR,
  OUTCOME_TIMEOUT,
  OUTCOME_UNANSWERED,
  outcomeClass,
  transportOutcome,
} from '../api/outcome.ts';
import { readNextCursor, appendCursor } from '../api/pagination.ts';
import { SignError, type RequestSigner } from '../api/request-signer.ts';
import { retryAfterSeconds } from '../api/retry-after.ts';
import type { Recorder } from '../metrics/recorder.ts';
import type { Sample } from '../metrics/sample.ts';
import type { RateLimitContract } from '../contract/rate-limit.ts';
import type { TemplateContext } from '../profile/plan.ts';
import { sanitizeText } from '../util/sanitize.ts';
import { safeTimeout } from '../util/timers.ts';
import type { ClientIdentity } from './client-identity.ts';
import type { ConnectionSet } from './connection-set.ts';
import { createPickerState, pickClient, type PickerState } from './client-picker.ts';
import { pickScenario, type CompiledPlan, type CompiledScenario } from './compiled-plan.ts';
import { InFlightRequestPool, type InFlightRequest, type InFlightListener } from './in-flight-request.ts';
import type { TokenManager } from './token-manager.ts';

export interface EngineOptions {
  readonly compiled: CompiledPlan;
  readonly connections: ConnectionSet;
  readonly recorder: Recorder;
  readonly clients: readonly ClientIdentity[];
  /** Told of each 401, to refresh the client's token (the token manager). */
  readonly tokens: Pick<TokenManager, 'onInvalidToken'>;
  readonly rateLimit: RateLimitContract;
  readonly bodyCapBytes: number;
  /** A longer response body is cut off (transport:body_too_large). */
  readonly maxBodyBytes: number;
  /** Every request's overall deadline (ms): one still unfinished then is cut (transport:timeout). */
  readonly requestTimeoutMs: number;
  readonly maxInFlight: number;
  /** Run clock: ms since the run's origin. */
  readonly now: () => number;
  /** Seeded uniform random in [0, 1). */
  readonly random: () => number;
  /** The profile's sign module: adds its headers to every request before it is sent; null = none. */
  readonly signer?: RequestSigner | null;
}

interface Iteration {
  readonly scenario: CompiledScenario;
  readonly client: ClientIdentity;
  readonly phaseIndex: number;
  readonly openModel: boolean;
  readonly number: number;
  readonly onDone: (() => void) | null;
  stepIndex: number;
  page: number;
  cursor: string | null;
  /** The current step's first-page body text, which later pages repeat byte for byte. */
  bodyText: string;
}

/** The engine's part of one request; one mutable record per InFlightRequest, recycled with it. */
interface RequestContext {
  iteration: Iteration | null;
  intendedMs: number;
  tokenGeneration: number;
  backoffWaitedMs: number;
  backoffRetryAfterS: number;
}

type MutableSample = { -readonly [K in keyof Sample]: Sample[K] };

export class LoadEngine implements InFlightListener<RequestContext> {
  inFlight = 0;
  private stopped = false;
  private iterations = 0;
  private readonly picker: PickerState;
  private availabilityNowMs = 0;
  private idleWaiter: (() => void) | null = null;
  private readonly requests: InFlightRequestPool<RequestContext>;
  /** Requests in flight, oldest first (a Set keeps insertion order): what the deadline sweep and the end of the run look at. */
  private readonly live = new Set<InFlightRequest<RequestContext>>();
  /** Iterations waiting out think time or a back-off before their next request, and the timer that resumes each. */
  private readonly waiting = new Map<NodeJS.Timeout, Iteration>();
  private readonly sweepTimer: NodeJS.Timeout;
  private unusableRetryAfterNoticed = false;
  /**
   * The iteration whose body is being rendered, read by templateContext: one context maker for the
   * engine instead of a closure per request (only templates that vary per request call it).
   */
  private templateIteration: Iteration | null = null;
  private readonly templateContext = (): TemplateContext => {
    const it = this.templateIteration!;
    return { clientId: it.client.id, clientIndex: it.client.index, iteration: it.number, random: this.o.random };
  };
  private readonly classifier = new ResponseClassifier();
  /** Reused for every record() call: the recorder copies what it needs synchronously. */
  private readonly sample: MutableSample = {
    methodIndex: 0,
    phaseIndex: 0,
    clientIndex: 0,
    outcome: '',
    status: 0,
    sentAtMs: 0,
    doneAtMs: 0,
    latencyUs: 0,
    serviceUs: 0,
    lagUs: -1,
    retryAfterS: -1,
    backoffWaitedMs: -1,
    backoffRetryAfterS: -1,
    detail: '',
  };

  constructor(private readonly o: EngineOptions) {
    this.picker = createPickerState(o.clients.map((c) => c.weight));
    const newContext = (): RequestContext => ({
      iteration: null,
      intendedMs: 0,
      tokenGeneration: 0,
      backoffWaitedMs: -1,
      backoffRetryAfterS: -1,
    });
    this.requests = new InFlightRequestPool(newContext, o.bodyCapBytes, o.maxBodyBytes, o.now, this);
    // One sweep a few times per deadline, instead of a timer per request on the hot path.
    this.sweepTimer = setInterval(() => this.cutOverdue(), Math.min(1000, Math.max(50, o.requestTimeoutMs / 4)));
    this.sweepTimer.unref();
  }

  private readonly isClientAvailable = (index: number): boolean => this.o.clients[index]!.isAvailable(this.availabilityNowMs);

  /**
   * Start one iteration due at `intendedMs`. Returns false when it cannot start; in the open
   * model the arrival is then recorded as skipped, with the reason.
   */
  startIteration(phaseIndex: number, intendedMs: number, openModel: boolean, onDone: (() => void) | null): boolean {
    if (this.stopped) return false;
    const nowMs = this.o.now();
    if (openModel && this.inFlight >= this.o.maxInFlight) {
      this.o.recorder.recordSkipped('max in-flight reached');
      return false;
    }
    this.availabilityNowMs = nowMs;
    const clientIndex = pickClient(this.picker, this.isClientAvailable);
    if (clientIndex < 0) {
      if (openModel)
        this.o.recorder.recordSkipped(this.o.clients.some((c) => c.headers !== null) ? 'all clients backing off' : 'no client has a token');
      return false;
    }
    const scenario = this.o.compiled.scenarios[pickScenario(this.o.compiled.cumulativeWeights, this.o.random())]!;
    const iteration: Iteration = {
      scenario,
      client: this.o.clients[clientIndex]!,
      phaseIndex,
      openModel,
      number: this.iterations++,
      onDone,
      stepIndex: 0,
      page: 0,
      cursor: null,
      bodyText: '',
    };
    this.send(iteration, intendedMs, nowMs);
    return true;
  }

  /** Earliest time any client becomes available again (for a closed-model user to wait for). */
  nextAvailabilityMs(): number {
    let earliest = Number.POSITIVE_INFINITY;
    for (const client of this.o.clients) if (client.headers !== null) earliest = Math.min(earliest, client.backoffUntilMs);
    return earliest;
  }

  /** Stop starting requests; resolves when nothing is in flight any more. */
  stop(): Promise<void> {
    this.stopped = true;
    for (const [timer, it] of this.waiting) {
      clearTimeout(timer);
      this.finishIteration(it);
    }
    this.waiting.clear();
    return this.inFlight === 0 ? Promise.resolve() : new Promise((resolve) => (this.idleWaiter = resolve));
  }

  /**
   * The run is over and the connections are about to be closed: every request still in flight was sent
   * and never answered. Each is recorded as transport:unanswered (visible to thresholds; the result
   * says the server stalled), and whatever undici reports about it afterwards is ignored.
   * Returns how many there were.
   */
  abandonInFlight(): number {
    clearInterval(this.sweepTimer);
    const nowMs = this.o.now();
    const abandoned = this.live.size;
    for (const request of this.live) {
      request.abandoned = true;
      request.status = 0; // whatever head arrived, no reply did
      this.inFlight--;
      const step = request.context.iteration!.scenario.steps[request.context.iteration!.stepIndex]!;
      this.record(request, step.methodIndex, OUTCOME_UNANSWERED, 'no reply before the end of the run', -1, nowMs);
    }
    this.live.clear();
    this.settle();
    return abandoned;
  }

  /** Cut every request past its deadline (those still queued for a connection are cut once on one). */
  private cutOverdue(): void {
    const deadlineMs = this.o.now() - this.o.requestTimeoutMs;
    for (const request of this.live) {
      if (request.dispatchedAtMs > deadlineMs) break; // oldest first: the rest are younger
      request.cut('timeout');
    }
  }

  private send(it: Iteration, intendedMs: number, nowMs: number): void {
    const step = it.scenario.steps[it.stepIndex]!;
    const client = it.client;
    let body: Buffer;
    if (it.page === 0) {
      this.templateIteration = it;
      const rendered = step.body(client.index, this.templateContext);
      it.bodyText = rendered.text;
      body = rendered.bytes;
    } else {
      body = Buffer.from(appendCursor(it.bodyText, it.cursor!));
    }
    const mark = client.takeBackoffMark(nowMs);
    const request = this.requests.take();
    const context = request.context;
    context.iteration = it;
    context.intendedMs = intendedMs;
    context.tokenGeneration = client.tokenGeneration;
    context.backoffWaitedMs = mark?.waitedMs ?? -1;
    context.backoffRetryAfterS = mark?.retryAfterS ?? -1;
    request.start(step.path, client.headers!, body, nowMs);
    request.lane = client.lane;
    this.inFlight++;
    this.live.add(request);
    if (this.o.signer != null) return this.signThenDispatch(this.o.signer, request, client);
    // The request carries its own reusable options and is the handler: nothing else is allocated.
    this.o.connections.dispatch(request);
  }

  /**
   * Add the sign module's headers, then send. A failed signature ends the request unsent (outcome
   * sign:error) on a later turn of the event loop, never inside this send: a loop of iterations
   * whose every signature fails must still let timers (the end of the phase) run.
   */
  private signThenDispatch(signer: RequestSigner, request: InFlightRequest<RequestContext>, client: ClientIdentity): void {
    const input = {
      method: 'POST',
      path: request.options.path,
      body: request.options.body,
      clientId: client.id,
      signingSecret: client.signingSecret,
    };
    const failUnsent = (err: unknown): void =>
      void setImmediate(() => request.onError(err instanceof SignError ? err : new SignError(String(err))));
    let signed: string[] | Promise<string[]>;
    try {
      signed = signer.sign(input, request.options.headers);
    } catch (err) {
      return failUnsent(err);
    }
    if (Array.isArray(signed)) {
      request.options.headers = signed;
      this.o.connections.dispatch(request);
      return;
    }
    signed.then((headers) => {
      request.options.headers = headers;
      this.o.connections.dispatch(request);
    }, failUnsent);
  }

  /** Back on the free list: the dispatcher reports nothing more about a finished request. */
  private recycle(request: InFlightRequest<RequestContext>): void {
    request.context.iteration = null;
    this.requests.give(request);
  }

  onRequestDone(request: InFlightRequest<RequestContext>): void {
    this.o.connections.release(request); // first: the freed connection may carry a waiting request at once
    if (request.abandoned) {
      // Already recorded as unanswered when the run ended.
      this.recycle(request);
      return;
    }
    this.inFlight--;
    this.live.delete(request);
    const nowMs = this.o.now();
    const it = request.context.iteration!;
    const step = it.scenario.steps[it.stepIndex]!;
    let outcome: string;
    let data: Readonly<Record<string, unknown>> | null = null;
    let detail = '';
    let retryAfterS = -1;
    if (request.cutReason !== null) {
      outcome = request.cutReason === 'timeout' ? OUTCOME_TIMEOUT : OUTCOME_BODY_TOO_LARGE;
      detail =
        request.cutReason === 'timeout'
          ? `no complete reply within ${this.o.requestTimeoutMs} ms`
          : `reply body over ${this.o.maxBodyBytes} bytes`;
    } else if (request.error instanceof SignError) {
      outcome = OUTCOME_SIGN_ERROR;
      detail = sanitizeText(request.error.message, 160);
    } else if (request.error !== null) {
      outcome = transportOutcome(request.error);
      detail = sanitizeText(request.error.message, 120);
    } else {
      const classification = this.classifier.classify(request.status, request.contentType, request.responseBody(), request.truncated);
      outcome = classification.outcome;
      data = classification.data;
      if (classification.kind === 'invalid') detail = classification.violations.join('; ');
      if (request.status === 429) {
        retryAfterS = retryAfterSeconds(request.retryAfter, Date.now());
        if (retryAfterS === -2) this.noticeUnusableRetryAfter(request.retryAfter);
      }
    }
    const client = it.client;
    if (outcomeClass(outcome) === 'rate_limited' && this.o.rateLimit.policy === 'honour')
      client.startBackoff(nowMs, retryAfterS, this.o.rateLimit.windowMs);
    if (request.status === 401) this.o.tokens.onInvalidToken(client, request.context.tokenGeneration);
    this.record(request, step.methodIndex, outcome, detail, retryAfterS, nowMs);
    this.recycle(request); // before advance(), which may send the iteration's next request
    this.advance(it, outcome === 'success' ? data : null, nowMs);
    this.settle();
  }

  /** Said once per run: the back-off then lasts one window (an absurd wait is a finding, not an instruction). */
  private noticeUnusableRetryAfter(raw: string | undefined): void {
    if (this.unusableRetryAfterNoticed) return;
    this.unusableRetryAfterNoticed = true;
    this.o.recorder.notice(
      `the server sent an unusable Retry-After (first: ${JSON.stringify(sanitizeText(raw ?? '', 60))}; not delay-seconds or an HTTP-date within a day): clients backed off one rate-limit window instead`,
    );
  }

  private record(
    request: InFlightRequest<RequestContext>,
    methodIndex: number,
    outcome: string,
    detail: string,
    retryAfterS: number,
    nowMs: number,
  ): void {
    const { iteration, intendedMs } = request.context;
    const it = iteration!;
    const s = this.sample;
    s.methodIndex = methodIndex;
    s.phaseIndex = it.phaseIndex;
    s.clientIndex = it.client.index;
    s.outcome = outcome;
    s.status = request.error === null ? request.status : 0;
    s.sentAtMs = request.sentAtMs;
    s.doneAtMs = nowMs;
    s.serviceUs = (nowMs - request.sentAtMs) * 1000;
    // Open model: from the intended start (coordinated-omission-correct); closed: from the send.
    s.latencyUs = it.openModel ? (nowMs - intendedMs) * 1000 : s.serviceUs;
    s.lagUs = it.openModel ? Math.max(0, request.dispatchedAtMs - intendedMs) * 1000 : -1;
    s.retryAfterS = retryAfterS;
    s.backoffWaitedMs = request.context.backoffWaitedMs;
    s.backoffRetryAfterS = request.context.backoffRetryAfterS;
    s.detail = detail;
    this.o.recorder.record(s);
  }

  /** Next page, next step (after its think time), or the end of the iteration. */
  private advance(it: Iteration, successData: Readonly<Record<string, unknown>> | null, nowMs: number): void {
    if (this.stopped || successData === null) return this.finishIteration(it);
    const step = it.scenario.steps[it.stepIndex]!;
    const paginate = step.plan.paginate;
    if (paginate !== null && it.page + 1 < paginate.maxPages) {
      const next = readNextCursor(successData);
      if ('cursor' in next && next.cursor !== null) {
        it.page++;
        it.cursor = next.cursor;
        return this.continueAt(it, nowMs);
      }
    }
    it.stepIndex++;
    it.page = 0;
    it.cursor = null;
    if (it.stepIndex >= it.scenario.steps.length) return this.finishIteration(it);
    this.continueAt(it, nowMs + step.plan.thinkMs);
  }

  /**
   * Send the iteration's next request at `dueMs`, or later if its client is backing off then: the
   * request is then due when the back-off ends, so a Retry-After pause never counts as latency.
   */
  private continueAt(it: Iteration, dueMs: number): void {
    const startMs = Math.max(dueMs, it.client.backoffUntilMs);
    const delayMs = startMs - this.o.now();
    if (delayMs <= 0) return this.send(it, startMs, this.o.now());
    const timer = safeTimeout(() => {
      this.waiting.delete(timer);
      if (this.stopped) this.finishIteration(it);
      else this.send(it, startMs, this.o.now());
    }, delayMs);
    this.waiting.set(timer, it);
  }

  private finishIteration(it: Iteration): void {
    it.onDone?.();
  }

  private settle(): void {
    if (this.stopped && this.inFlight === 0 && this.idleWaiter) {
      const resolve = this.idleWaiter;
      this.idleWaiter = null;
      resolve();
    }
  }
}
