/**
 * The load engine: starts scenario iterations (an open-model arrival, a closed-model user's next
 * turn, a client's next of its N iterations, a replayed call) on a client of the workload whose
 * phase asks, sends each of their requests on the run's connections (connection-set.ts, under
 * rpcload's connection contract: connection.ts), judges and records every finished request, and
 * walks the iteration on. The load kinds only decide *when* an iteration starts; everything per
 * request happens here,
 * with its parts in their own modules: the iteration and its walk (iteration.ts), what a finished
 * request came to (request-outcome.ts), its Sample (sample-writer.ts).
 *
 * Why the hot path makes no closure per request: at tens of thousands of requests per second on
 * one thread, every closure or callback object made per request is a heap allocation the garbage
 * collector must trace and free, and one that captures the engine or an iteration holds it for as
 * long as a connection holds the callback. So what a request needs travels in records recycled with
 * it (an InFlightRequest is what its connection reports to, and carries its RequestContext), and the few functions
 * the hot path hands out are made once per engine, reading their per-call input from a field set
 * just before the call. Fields that exist only for this say so. (A think time or a back-off wait
 * does make a timer closure: that request waits anyway.)
 */
import { basename } from 'node:path';
import { ResponseClassifier } from '../api/envelope.ts';
import { OUTCOME_SIGN_ERROR, OUTCOME_UNANSWERED, outcomeClass } from '../api/outcome.ts';
import { SignError, type RequestSigner } from '../api/request-signer.ts';
import { describeUnusableRetryAfter, RETRY_AFTER_ABSENT, RETRY_AFTER_UNUSABLE } from '../api/retry-after.ts';
import type { RateLimitContract } from '../contract/rate-limit.ts';
import type { Recorder } from '../metrics/recorder.ts';
import { cancelWake, wakeSoon, type WakeHandle } from '../util/timers.ts';
import type { ClientIdentity } from './client-identity.ts';
import { createPickerState, pickClient, type PickerState } from './client-picker.ts';
import type { DataFeeds } from './data-feed.ts';
import { judgeFlow, OUTCOME_MISSING_VALUE } from './flow.ts';
import { pickScenario, type CompiledPlan } from './compiled-plan.ts';
import type { ReplicaRouter } from './replica-router.ts';
import type { HttpDebug } from './http-debug.ts';
import { InFlightRequestPool, type InFlightListener, type InFlightRequest } from './in-flight-request.ts';
import {
  currentStep,
  newIteration,
  newRequestContext,
  RequestBodies,
  walkOn,
  type Iteration,
  type LoadModel,
  type RequestContext,
} from './iteration.ts';
import { judgeRequest, newRequestOutcome, type RequestOutcome } from './request-outcome.ts';
import { SampleWriter } from './sample-writer.ts';
import type { TokenManager } from './token-manager.ts';
import { carriesTraceparent, type TraceIds } from './trace-context.ts';
import type { TraceContextMode } from '../profile/plan.ts';

export interface EngineOptions {
  readonly compiled: CompiledPlan;
  /** The connections of the target, or of each replica, and which one carries a request. */
  readonly connections: ReplicaRouter;
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
  /** Open model: arrivals beyond this many requests in flight are skipped (and counted). */
  readonly maxInFlight: number;
  /** Run clock: ms since the run's origin. */
  readonly now: () => number;
  /** Seeded uniform random in [0, 1). */
  readonly random: () => number;
  /** The profile's sign module: adds its headers to every request before it is sent; null = none. */
  readonly signer?: RequestSigner | null;
  /** The data sets' rows (null: the plan has none); an iteration takes one row of each set its scenario reads. */
  readonly data?: DataFeeds | null;
  /** Told when a data set with onEnd stop ran out of rows: the run ends (its name). */
  readonly onDataExhausted?: (set: string) => void;
  /** Whether requests carry a traceparent (always, sampled traces only, never). */
  readonly traceMode: TraceContextMode;
  /** Where the trace and span ids come from (shared with the run's token requests). */
  readonly traceIds: TraceIds;
  /** Headers every API request carries besides its client's and its traceparent (user agent, tracestate, baggage). */
  readonly staticHeaders: readonly string[];
  /** The values the run's setup saved (`{{setup.NAME}}`); null or absent when it has none. */
  readonly setupValues?: Readonly<Record<string, unknown>> | null;
  /** Told of each iteration that walked all its steps, with the values its steps saved (setup keeps them). */
  readonly onIterationDone?: (vars: Readonly<Record<string, unknown>> | null) => void;
  /** `--http-debug`: prints the first exchanges; null or absent = off. */
  readonly httpDebug?: HttpDebug | null;
}

/** Why arrivals still owed when their open phase ended were not sent (the result's `skipped`). */
export const SKIP_PHASE_ENDED = 'phase ended before the generator caught up';

/** What a request written off at the run's end came to. */
const UNANSWERED: RequestOutcome = Object.freeze({
  outcome: OUTCOME_UNANSWERED,
  successData: null,
  retryAfterS: RETRY_AFTER_ABSENT,
  detail: 'no reply before the end of the run',
});

export class LoadEngine implements InFlightListener<RequestContext> {
  /** Requests sent and not yet finished (read by the live metrics). */
  inFlight = 0;
  private stopped = false;
  private iterations = 0;
  /** Each workload's round-robin over its own clients (their weights there). */
  private readonly pickers: PickerState[];
  /** The time `isClientAvailable` judges at: exists only so that predicate needs no closure per pick. */
  private availabilityNowMs = 0;
  /** The clients (global indexes) of the workload being picked for: set before each pick, as availabilityNowMs. */
  private pickingFrom: readonly number[] = [];
  /** pickClient's predicate, made once (see availabilityNowMs): `index` is a position in the workload's clients. */
  private readonly isClientAvailable = (index: number): boolean =>
    this.o.clients[this.pickingFrom[index]!]!.isAvailable(this.availabilityNowMs);
  private idleWaiter: (() => void) | null = null;
  private readonly requests: InFlightRequestPool<RequestContext>;
  /** Requests in flight, oldest first (a Set keeps insertion order): what the deadline sweep and the end of the run look at. */
  private readonly live = new Set<InFlightRequest<RequestContext>>();
  /** Iterations waiting out think time or a back-off before their next request, and the timer (or immediate) that resumes each. */
  private readonly waiting = new Map<WakeHandle, Iteration>();
  private readonly sweepTimer: NodeJS.Timeout;
  private unusableRetryAfterNoticed = false;
  /** One example of flow:missing_value goes into the result's warnings. */
  private missingValueNoticed = false;
  private readonly bodies: RequestBodies;
  private readonly classifier = new ResponseClassifier();
  /** Refilled by judgeRequest for every finished request, read before the next one finishes. */
  private readonly outcome = newRequestOutcome();
  private readonly samples: SampleWriter;
  /** Each client token's header list with the run's static headers, by the token's list (it goes with it). */
  private readonly withStaticHeaders = new WeakMap<readonly string[], string[]>();
  /** Requests carry their traceparent apart from their header list (see headersOf). */
  private readonly traceparentApart: boolean;
  private readonly httpDebug: HttpDebug | null;
  /** The last ticket handed to a pending signature (see InFlightRequest.signingTicket). */
  private signTickets = 0;

  constructor(private readonly o: EngineOptions) {
    this.pickers = o.compiled.workloads.map((workload) => createPickerState(workload.clientWeights));
    this.bodies = new RequestBodies(o.random, o.setupValues ?? null);
    this.samples = new SampleWriter(o.recorder);
    // A signer signs the header list: the traceparent must be in it.
    this.traceparentApart = o.signer == null;
    this.httpDebug = o.httpDebug ?? null;
    this.requests = new InFlightRequestPool(
      newRequestContext,
      o.bodyCapBytes,
      o.maxBodyBytes,
      o.now,
      this,
      this.httpDebug !== null,
    );
    // One sweep a few times per deadline, instead of a timer per request on the hot path.
    this.sweepTimer = setInterval(() => this.cutOverdue(), Math.min(1000, Math.max(50, o.requestTimeoutMs / 4)));
    this.sweepTimer.unref();
  }

  /**
   * Open model: start an iteration for the arrival due at `dueMs` (its latency counts from then).
   * An arrival that cannot start — too many requests in flight, no client available — is recorded
   * as skipped, with the reason.
   */
  startArrival(phaseIndex: number, dueMs: number): void {
    if (this.stopped) return;
    const nowMs = this.o.now();
    if (this.inFlight >= this.o.maxInFlight)
      return this.o.recorder.recordSkipped('max in-flight reached', 1, phaseIndex);
    const workload = this.o.compiled.phaseWorkload[phaseIndex]!;
    const clientIndex = this.availableClient(workload, nowMs);
    if (clientIndex < 0)
      return this.o.recorder.recordSkipped(
        this.o.compiled.workloads[workload]!.clients.some((c) => this.o.clients[c]!.headers !== null)
          ? 'all clients backing off'
          : 'no client has a token',
        1,
        phaseIndex,
      );
    const it = this.iterationOn(workload, clientIndex, phaseIndex, 'open', null);
    if (it !== null) this.send(it, dueMs, nowMs);
  }

  /**
   * Open model: `count` arrivals of a phase that ended before the generator, behind after a stall,
   * released them. They are skipped, not sent late: a backlog never stretches a phase.
   */
  recordUnsentAtPhaseEnd(phaseIndex: number, count: number): void {
    this.recordSkipped(phaseIndex, SKIP_PHASE_ENDED, count);
  }

  /** `count` arrivals or iterations a load kind did not start in a phase, for `reason` (the result's `skipped`). */
  recordSkipped(phaseIndex: number, reason: string, count: number): void {
    if (count > 0) this.o.recorder.recordSkipped(reason, count, phaseIndex);
  }

  /**
   * Closed model: start a user's next iteration now; `onDone` is told when it ends. Returns false
   * when no client is available (the user waits, see nextAvailabilityMs) or the engine stopped.
   */
  startUser(phaseIndex: number, onDone: () => void): boolean {
    if (this.stopped) return false;
    const nowMs = this.o.now();
    const workload = this.o.compiled.phaseWorkload[phaseIndex]!;
    const clientIndex = this.availableClient(workload, nowMs);
    if (clientIndex < 0) return false;
    const it = this.iterationOn(workload, clientIndex, phaseIndex, 'closed', onDone);
    if (it === null) return false;
    this.send(it, nowMs, nowMs);
    return true;
  }

  /**
   * Iterations: start the next iteration of the client at `clientIndex` now (closed model); `onDone`
   * is told when it ends. Returns false when that client cannot send now (no token, backing off:
   * see clientAvailableAtMs) or the engine stopped; true also when the iteration could not start
   * for lack of a data row (it counts as run: the row is what it would have used).
   */
  startIteration(phaseIndex: number, clientIndex: number, onDone: () => void): boolean {
    if (this.stopped) return false;
    const nowMs = this.o.now();
    if (!this.o.clients[clientIndex]!.isAvailable(nowMs)) return false;
    const workload = this.o.compiled.phaseWorkload[phaseIndex]!;
    const it = this.iterationOn(workload, clientIndex, phaseIndex, 'closed', onDone);
    if (it === null) {
      setImmediate(onDone);
      return true;
    }
    this.send(it, nowMs, nowMs);
    return true;
  }

  /** When the client at `clientIndex` can send again (its back-off's end); Infinity while it has no token. */
  clientAvailableAtMs(clientIndex: number): number {
    const client = this.o.clients[clientIndex]!;
    return client.headers === null ? Number.POSITIVE_INFINITY : client.backoffUntilMs;
  }

  /**
   * Replay: send one recorded call due at `dueMs`, by the client at `clientIndex` (its caller's),
   * with its recorded `body`, as a one-step iteration of the scenario of its method. A call whose
   * client cannot send now (no token, backing off after a 429, too many requests in flight) is
   * recorded as skipped, with the reason: a caller's calls are never sent out of order.
   */
  startCall(phaseIndex: number, dueMs: number, clientIndex: number, scenarioIndex: number, body: Buffer): void {
    if (this.stopped) return;
    if (this.inFlight >= this.o.maxInFlight)
      return this.o.recorder.recordSkipped('max in-flight reached', 1, phaseIndex);
    const nowMs = this.o.now();
    const client = this.o.clients[clientIndex]!;
    if (!client.isAvailable(nowMs))
      return this.o.recorder.recordSkipped(
        client.headers === null ? 'client has no token' : 'client backing off',
        1,
        phaseIndex,
      );
    const scenario = this.o.compiled.scenarios[scenarioIndex]!;
    const it = newIteration(scenario, client, phaseIndex, 'open', this.iterations++, null);
    this.o.traceIds.nextTrace(it);
    this.dispatch(it, body, dueMs, nowMs);
  }

  /** Earliest time any client of the phase's workload becomes available again (for a closed-model user to wait for). */
  nextAvailabilityMs(phaseIndex: number): number {
    let earliest = Number.POSITIVE_INFINITY;
    const workload = this.o.compiled.workloads[this.o.compiled.phaseWorkload[phaseIndex]!]!;
    for (const index of workload.clients) earliest = Math.min(earliest, this.clientAvailableAtMs(index));
    return earliest;
  }

  /** Stop starting requests; resolves when nothing is in flight any more. */
  stop(): Promise<void> {
    this.stopped = true;
    for (const [handle, it] of this.waiting) {
      cancelWake(handle);
      it.onDone?.();
    }
    this.waiting.clear();
    return this.inFlight === 0 ? Promise.resolve() : new Promise((resolve) => (this.idleWaiter = resolve));
  }

  /**
   * The run is over and the connections are about to be closed: every request still in flight was sent
   * and never answered. Each is recorded as transport:unanswered (visible to thresholds; the result
   * says the server stalled), and whatever its connection reports about it afterwards is ignored.
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
      // Still waiting for its signature: nothing was sent, and the server is not the one that stalled.
      const signing = request.signingTicket !== 0;
      request.signingTicket = 0;
      this.samples.write(request, signing ? this.unsignedAtEnd() : UNANSWERED, nowMs);
    }
    this.live.clear();
    this.settle();
    return abandoned;
  }

  /**
   * Add the sign module's headers, then send. A failed signature ends the request unsent (outcome
   * sign:error) on a later turn of the event loop, never inside this send: a loop of iterations
   * whose every signature fails must still let timers (the end of the phase) run.
   */
  private signThenDispatch(
    signer: RequestSigner,
    request: InFlightRequest<RequestContext>,
    client: ClientIdentity,
  ): void {
    const input = {
      method: 'POST',
      path: request.head.path,
      body: request.head.body,
      clientId: client.id,
      signingSecret: client.signingSecret,
    };
    const failUnsent = (err: unknown): void =>
      void setImmediate(() => request.onRequestError(err instanceof SignError ? err : new SignError(String(err))));
    let signed: string[] | Promise<string[]>;
    try {
      signed = signer.sign(input, request.head.headers);
    } catch (err) {
      return failUnsent(err);
    }
    if (Array.isArray(signed)) {
      request.head.headers = signed;
      this.o.connections.dispatch(request);
      return;
    }
    // Until the promise settles the request is on no connection: its deadline (cutOverdue) or the
    // run's end settles it instead, and the ticket tells a late answer it is no longer wanted.
    const ticket = ++this.signTickets;
    request.signingTicket = ticket;
    signed.then(
      (headers) => {
        if (request.signingTicket !== ticket) return;
        request.signingTicket = 0;
        request.head.headers = headers;
        this.o.connections.dispatch(request);
      },
      (err: unknown) => {
        if (request.signingTicket !== ticket) return;
        request.signingTicket = 0;
        failUnsent(err);
      },
    );
  }

  /** What a request still waiting for its signature at the end of the run came to. */
  private unsignedAtEnd(): RequestOutcome {
    return {
      outcome: OUTCOME_SIGN_ERROR,
      successData: null,
      retryAfterS: RETRY_AFTER_ABSENT,
      detail: `sign:timeout: the sign module ${this.signerName()} did not answer before the end of the run`,
    };
  }

  private signerName(): string {
    return this.o.signer == null ? '' : basename(this.o.signer.source);
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
    if (this.httpDebug !== null) this.httpDebug.exchange(request);
    const nowMs = this.o.now();
    const it = request.context.iteration!;
    const outcome = judgeRequest(request, this.o, this.classifier, Date.now, this.outcome);
    if (outcome.retryAfterS === RETRY_AFTER_UNUSABLE) this.noticeUnusableRetryAfter(request.retryAfter);
    if (outcomeClass(outcome.outcome) === 'rate_limited' && this.o.rateLimit.policy === 'honour')
      it.client.startBackoff(nowMs, outcome.retryAfterS, this.o.rateLimit.windowMs);
    if (request.status === 401) this.o.tokens.onInvalidToken(it.client, request.context.tokenGeneration);
    const goOn = judgeFlow(currentStep(it).plan, outcome, it.vars);
    if (outcome.outcome === OUTCOME_MISSING_VALUE) this.noticeMissingValue(outcome.detail);
    this.samples.write(request, outcome, nowMs);
    this.recycle(request); // before the walk on, which may send the iteration's next request
    const waitMs = this.stopped ? null : walkOn(it, outcome.successData, goOn, this.o.random);
    if (waitMs === null) {
      if (goOn && it.stepIndex >= it.scenario.steps.length) this.o.onIterationDone?.(it.vars);
      it.onDone?.();
    } else this.continueAt(it, nowMs + waitMs);
    this.settle();
  }

  /** The workload's next available client by weight, judged at `nowMs` (its index in the engine's clients); -1 when none is. */
  private availableClient(workload: number, nowMs: number): number {
    this.availabilityNowMs = nowMs;
    this.pickingFrom = this.o.compiled.workloads[workload]!.clients;
    const picked = pickClient(this.pickers[workload]!, this.isClientAvailable);
    return picked < 0 ? -1 : this.pickingFrom[picked]!;
  }

  /**
   * A new iteration of a scenario of the workload picked by weight, on the client at `clientIndex`,
   * with a row of each data set the scenario reads; null when a set has no row for it (recorded as
   * skipped, or the set ran out and the run ends).
   */
  private iterationOn(
    workload: number,
    clientIndex: number,
    phaseIndex: number,
    model: LoadModel,
    onDone: (() => void) | null,
  ): Iteration | null {
    const { scenarios, cumulativeWeights } = this.o.compiled.workloads[workload]!;
    const scenario = this.o.compiled.scenarios[scenarios[pickScenario(cumulativeWeights, this.o.random())]!]!;
    const it = newIteration(scenario, this.o.clients[clientIndex]!, phaseIndex, model, this.iterations++, onDone);
    this.o.traceIds.nextTrace(it);
    const data = this.o.data;
    // Without feeds (the warm-up's engine) an iteration has no rows: its body lacks them and is not sent.
    if (scenario.dataSets.length === 0 || data == null) return it;
    const rows = data.take(scenario.dataSets);
    if (typeof rows === 'object') {
      it.rows = rows;
      return it;
    }
    if (rows === 'exhausted') this.o.onDataExhausted?.(data.shortageSet);
    else this.o.recorder.recordSkipped(`data set ${data.shortageSet}: rows not read yet`, 1, phaseIndex);
    return null;
  }

  /** Send the iteration's next request, due at `intendedMs`. */
  private send(it: Iteration, intendedMs: number, nowMs: number): void {
    const body = this.bodies.next(it);
    if (body === null) {
      // A value its body names is missing: that request is never sent (never a body with a hole in it).
      this.o.recorder.recordSkipped(OUTCOME_MISSING_VALUE, 1, it.phaseIndex);
      this.noticeMissingValue(`${currentStep(it).plan.method}: no value for {{${this.bodies.lastMissing}}}`);
      it.onDone?.();
      return;
    }
    this.dispatch(it, body, intendedMs, nowMs);
  }

  /** Send `body` as the iteration's next request, due at `intendedMs`. */
  private dispatch(it: Iteration, body: Buffer, intendedMs: number, nowMs: number): void {
    const client = it.client;
    const request = this.requests.take();
    const context = request.context;
    context.iteration = it;
    context.intendedMs = intendedMs;
    context.tokenGeneration = client.tokenGeneration;
    context.backoff = client.takeBackoffMark(nowMs);
    this.o.traceIds.nextSpan(context);
    context.traceparent = carriesTraceparent(this.o.traceMode, it) ? this.o.traceIds.traceparent(it, context) : null;
    request.route = this.o.connections.pick(client.index);
    const traceparentApart = context.traceparent !== null && this.traceparentApart;
    request.start(
      currentStep(it).paths[request.route]!,
      this.headersOf(client.headers!, traceparentApart ? null : context.traceparent),
      traceparentApart ? context.traceparent : null,
      body,
      nowMs,
    );
    request.lane = client.lane;
    this.inFlight++;
    this.live.add(request);
    if (this.o.signer != null) return this.signThenDispatch(this.o.signer, request, client);
    // The request carries its own reusable options and is the handler: nothing else is allocated.
    this.o.connections.dispatch(request);
  }

  /**
   * The request's header list: its client's, the run's static ones, and `traceparent` when it
   * cannot go apart (a sign module signs the list). Without a traceparent in it, the list is the
   * same array for every request of the client's token (made once per token), so rpcload's HTTP/1.1
   * client, which keeps the head it encoded by the list's identity, encodes it once; with one, a new
   * list for this request — never a list refilled in place, which that client would send as it was
   * first encoded.
   */
  private headersOf(clientHeaders: readonly string[], traceparent: string | null): string[] {
    const extra = this.o.staticHeaders;
    let base = clientHeaders as string[];
    if (extra.length > 0) {
      const kept = this.withStaticHeaders.get(clientHeaders);
      base = kept ?? clientHeaders.concat(extra);
      if (kept === undefined) this.withStaticHeaders.set(clientHeaders, base);
    }
    return traceparent === null ? base : base.concat('traceparent', traceparent);
  }

  /**
   * Send the iteration's next request at `dueMs`, or later if its client is backing off then: the
   * request is then due when the back-off ends, so a Retry-After pause never counts as latency.
   */
  private continueAt(it: Iteration, dueMs: number): void {
    this.sendWhenDue(it, Math.max(dueMs, it.client.backoffUntilMs));
  }

  /**
   * Send the iteration's next request at `dueMs` on the run clock, never before it: the request's
   * latency counts from `dueMs`, so one sent earlier would count from after its own send. The wake
   * (wakeSoon) may come early; the clock is checked again then.
   */
  private sendWhenDue(it: Iteration, dueMs: number): void {
    const nowMs = this.o.now();
    const waitMs = dueMs - nowMs;
    if (waitMs <= 0) return this.send(it, dueMs, nowMs);
    const resume = (): void => {
      this.waiting.delete(handle);
      if (this.stopped) it.onDone?.();
      else this.sendWhenDue(it, dueMs);
    };
    const handle = wakeSoon(waitMs, resume);
    this.waiting.set(handle, it);
  }

  onRequestResent(): void {
    this.o.recorder.recordStaleConnectionRetry();
  }

  /** Cut every request past its deadline (those still queued for a connection are cut once on one). */
  private cutOverdue(): void {
    const deadlineMs = this.o.now() - this.o.requestTimeoutMs;
    for (const request of this.live) {
      if (request.dispatchedAtMs > deadlineMs) break; // oldest first: the rest are younger
      if (request.signingTicket !== 0) {
        // Never sent: the sign module, not the server, kept it past its deadline.
        request.signingTicket = 0;
        const deadline = `the request deadline (${this.o.requestTimeoutMs} ms)`;
        const reason = `sign:timeout: the sign module ${this.signerName()} did not answer within ${deadline}`;
        request.onRequestError(new SignError(reason));
      } else request.cut('timeout');
    }
  }

  /** Back on the free list: the dispatcher reports nothing more about a finished request. */
  private recycle(request: InFlightRequest<RequestContext>): void {
    request.context.iteration = null;
    this.requests.give(request);
  }

  /** Said once per run: the back-off then lasts one window (an absurd wait is a finding, not an instruction). */
  private noticeUnusableRetryAfter(raw: string | string[] | undefined): void {
    if (this.unusableRetryAfterNoticed) return;
    this.unusableRetryAfterNoticed = true;
    this.o.recorder.notice(
      `the server sent ${describeUnusableRetryAfter(raw)}: clients backed off one rate-limit window instead`,
    );
  }

  /** One example of a flow:missing_value, in the result's warnings. */
  private noticeMissingValue(detail: string): void {
    if (this.missingValueNoticed) return;
    this.missingValueNoticed = true;
    this.o.recorder.notice(`${OUTCOME_MISSING_VALUE}: iterations ended for a missing value, e.g. ${detail}`);
  }

  private settle(): void {
    if (this.stopped && this.inFlight === 0 && this.idleWaiter) {
      const resolve = this.idleWaiter;
      this.idleWaiter = null;
      resolve();
    }
  }
}
