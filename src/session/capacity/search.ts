/**
 * The capacity search as a pure decision over the steps so far: grow by a factor from the start
 * until a step fails, then bisect between the last pass and the first fail until the bracket is
 * within the tolerance. Rates (or concurrencies) only; what a step measures and how it is judged
 * is the session's business. A ceiling (the configured max, or the clients' quota bound) caps the
 * growth: reaching it with a pass ends the search "at least" there.
 */

export interface SearchSettings {
  readonly start: number;
  readonly factor: number;
  /** Stop when (first fail − last pass) / last pass ≤ tolerance. */
  readonly tolerance: number;
  readonly maxSteps: number;
  /** Whole numbers only (virtual users). */
  readonly integer: boolean;
}

export interface SearchCeiling {
  readonly value: number;
  readonly reason: 'max' | 'client quota';
}

export interface SearchPoint {
  readonly load: number;
  readonly pass: boolean;
}

export type SearchNext =
  | { readonly kind: 'step'; readonly load: number }
  | {
      readonly kind: 'done';
      /** Highest passing load below the first fail (null: nothing passed). */
      readonly lastPass: number | null;
      /** Lowest failing load (null: nothing failed). */
      readonly firstFail: number | null;
      readonly reason: 'bracketed' | 'ceiling' | 'nothing passed' | 'max steps';
    };

/** Loads are kept to 3 significant digits above 100 and 0.1 below, so steps read cleanly. */
export function roundLoad(load: number, integer: boolean): number {
  if (integer) return Math.max(1, Math.round(load));
  if (load >= 100) return Math.round(load);
  return Math.max(0.1, Math.round(load * 10) / 10);
}

/** The bracket of the points so far. */
export function bracketOf(points: readonly SearchPoint[]): { lastPass: number | null; firstFail: number | null } {
  const fails = points.filter((p) => !p.pass).map((p) => p.load);
  const firstFail = fails.length === 0 ? null : Math.min(...fails);
  const passes = points.filter((p) => p.pass && (firstFail === null || p.load < firstFail)).map((p) => p.load);
  return { lastPass: passes.length === 0 ? null : Math.max(...passes), firstFail };
}

/** What to do next, given every search step so far (in any order). */
export function nextStep(
  settings: SearchSettings,
  points: readonly SearchPoint[],
  ceiling: SearchCeiling | null = null,
): SearchNext {
  const { lastPass, firstFail } = bracketOf(points);
  const done = (reason: 'bracketed' | 'ceiling' | 'nothing passed' | 'max steps'): SearchNext => ({
    kind: 'done',
    lastPass,
    firstFail,
    reason,
  });
  const tried = new Set(points.map((p) => p.load));
  const propose = (load: number, otherwise: SearchNext): SearchNext => {
    const rounded = roundLoad(load, settings.integer);
    return tried.has(rounded) ? otherwise : { kind: 'step', load: rounded };
  };
  if (points.length >= settings.maxSteps) return done('max steps');
  const cap = ceiling === null ? Number.POSITIVE_INFINITY : roundLoad(ceiling.value, settings.integer);
  if (points.length === 0) return { kind: 'step', load: Math.min(roundLoad(settings.start, settings.integer), cap) };
  if (firstFail === null) {
    // Growing: every step so far passed.
    if (lastPass! >= cap) return done('ceiling');
    return propose(Math.min(lastPass! * settings.factor, cap), done('ceiling'));
  }
  if (lastPass === null) {
    // The lowest step failed: step down by the factor until one passes.
    const lower = firstFail / settings.factor;
    if (lower < (settings.integer ? 1 : 0.1)) return done('nothing passed');
    return propose(lower, done('nothing passed'));
  }
  if ((firstFail - lastPass) / lastPass <= settings.tolerance) return done('bracketed');
  return propose((lastPass + firstFail) / 2, done('bracketed'));
}
