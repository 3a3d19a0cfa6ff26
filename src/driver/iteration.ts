/**
 * One scenario iteration — one client walking a scenario's steps and their pages — and what each
 * of its requests carries: the record the engine keeps per iteration, the walk from one request
 * to the next, and the rendering of each request's body.
 *
 * State an iteration carries from step to step (its position, its trace, the values its steps
 * saved, its data rows) lives in `Iteration`; the walk reads each
 * finished request's reply (`walkOn`); what a request's content depends on is rendered from the
 * iteration (`RequestBodies`).
 */
import { appendCursor, readNextCursor } from '../api/pagination.ts';
import type { TemplateContext } from '../profile/plan.ts';
import type { BackoffMark, ClientIdentity } from './client-identity.ts';
import type { CompiledScenario, CompiledStep } from './compiled-plan.ts';
import { thinkTimeMs } from './flow.ts';
import type { SpanWords, TraceWords } from './trace-context.ts';

/**
 * How latency is measured: from the arrival's due time (open model, coordinated-omission-correct)
 * or from the send (closed model, whose users wait for their own replies).
 */
export type LoadModel = 'open' | 'closed';

/**
 * One iteration's record. A plain object made by `newIteration` (an object literal: the cheapest
 * record V8 makes, one per iteration on the hot path); the walk mutates its position.
 */
export interface Iteration extends TraceWords {
  readonly scenario: CompiledScenario;
  readonly client: ClientIdentity;
  readonly phaseIndex: number;
  readonly model: LoadModel;
  /** Iteration counter of the run (templates' `iteration`). */
  readonly number: number;
  /** Told when the iteration ends (a closed-model user then starts its next one); null in the open model. */
  readonly onDone: (() => void) | null;
  stepIndex: number;
  /** Page of the current step (0 = its first request). */
  page: number;
  /** The `next` cursor the current page is asked for with; null on a step's first page. */
  cursor: string | null;
  /** The current step's first-page body text, which later pages repeat byte for byte. */
  bodyText: string;
  /** Values saved by its steps (`{{vars.NAME}}`); null in a scenario that saves none. */
  readonly vars: Record<string, unknown> | null;
  /** Its row of each data set its scenario reads, by set name; null when it reads none. */
  rows: Record<string, Readonly<Record<string, unknown>>> | null;
  // TraceWords: the iteration's trace id, shared by every request of its walk (set by the engine).
}

/** A data row: column (or JSON Lines key) → value. */
export type DataRow = Readonly<Record<string, unknown>>;

export function newIteration(
  scenario: CompiledScenario,
  client: ClientIdentity,
  phaseIndex: number,
  model: LoadModel,
  number: number,
  onDone: (() => void) | null,
): Iteration {
  const vars = scenario.saves ? (Object.create(null) as Record<string, unknown>) : null;
  return {
    scenario,
    client,
    phaseIndex,
    model,
    number,
    onDone,
    stepIndex: 0,
    page: 0,
    cursor: null,
    bodyText: '',
    vars,
    rows: null,
    trace0: 0,
    trace1: 0,
    trace2: 0,
    trace3: 0,
    traceSampled: false,
  };
}

/** The step the iteration's next (or current) request belongs to. */
export function currentStep(it: Iteration): CompiledStep {
  return it.scenario.steps[it.stepIndex]!;
}

/**
 * The engine's part of one request: one mutable record per InFlightRequest, recycled with it, so
 * what its connection tells the request (connection.ts) reaches its iteration without a closure.
 */
export interface RequestContext extends SpanWords {
  /** The iteration this request belongs to; null while the record waits on the free list. */
  iteration: Iteration | null;
  /** When the request was due (run clock, ms): its arrival, its user's start, or the end of a think time or back-off. */
  intendedMs: number;
  /** The client's token generation when sent: a 401 for an older token does not refresh it again. */
  tokenGeneration: number;
  /** Set on a client's first request after sitting out a Retry-After; null on every other. */
  backoff: BackoffMark | null;
  /** The traceparent sent; null when the request carried none. (SpanWords: its span id.) */
  traceparent: string | null;
}

export function newRequestContext(): RequestContext {
  return { iteration: null, intendedMs: 0, tokenGeneration: 0, backoff: null, span0: 0, span1: 0, traceparent: null };
}

/**
 * Walk the iteration on after a request that ended with `successData` (null: it failed): when
 * `goOn` (by default: it succeeded; a flow's judgement otherwise, see flow.ts), to the next page
 * of its step (when the step paginates and the reply had a cursor), else to its next step.
 * Returns the wait before that request (ms; the step's think time, drawn with `random`, before a
 * new step), or null when the iteration is over.
 */
export function walkOn(
  it: Iteration,
  successData: Readonly<Record<string, unknown>> | null,
  goOn = successData !== null,
  random: () => number = Math.random,
): number | null {
  if (!goOn) return null;
  const step = currentStep(it);
  const paginate = step.plan.paginate;
  if (paginate !== null && successData !== null && it.page + 1 < paginate.maxPages) {
    const next = readNextCursor(successData);
    if ('cursor' in next && next.cursor !== null) {
      it.page++;
      it.cursor = next.cursor;
      return 0;
    }
  }
  it.stepIndex++;
  it.page = 0;
  it.cursor = null;
  return it.stepIndex < it.scenario.steps.length ? thinkTimeMs(step.plan.think, random) : null;
}

/**
 * Renders the body of each iteration's next request. One per engine: a template that varies per
 * request asks for its context through one function made here, which reads the iteration being
 * rendered from a field, instead of a closure made per request.
 */
export class RequestBodies {
  /** The iteration being rendered: exists only so that `context` needs no closure per request. */
  private rendering: Iteration | null = null;
  /** What the body being rendered names and its iteration lacks (e.g. "vars.orderId"); null when nothing. */
  private missingValue: string | null = null;
  private readonly missing = (what: string): void => {
    this.missingValue ??= what;
  };
  private readonly context = (): TemplateContext => {
    const it = this.rendering!;
    return {
      clientId: it.client.id,
      clientIndex: it.client.index,
      iteration: it.number,
      random: this.random,
      vars: it.vars,
      data: it.rows,
      setup: this.setup,
      missing: this.missing,
    };
  };

  constructor(
    /** Seeded uniform random in [0, 1), for templates' random parts. */
    private readonly random: () => number,
    /** The run's setup values (`{{setup.NAME}}`); null when it has none. */
    private readonly setup: Readonly<Record<string, unknown>> | null = null,
  ) {}

  /**
   * The bytes of the iteration's next request: its step's body, or the first page's with the next
   * cursor; null when the body names a value the iteration lacks (see `lastMissing`).
   */
  next(it: Iteration): Buffer | null {
    if (it.page > 0) return Buffer.from(appendCursor(it.bodyText, it.cursor!));
    this.rendering = it;
    this.missingValue = null;
    const rendered = currentStep(it).body(it.client.index, this.context);
    if (this.missingValue !== null) return null;
    it.bodyText = rendered.text;
    return rendered.bytes;
  }

  /** What the last body `next` refused to render lacked (e.g. "data.users.email"). */
  get lastMissing(): string {
    return this.missingValue ?? '';
  }
}
