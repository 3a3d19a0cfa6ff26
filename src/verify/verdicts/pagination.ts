/**
 * `pagination`: walking `next` with identical params — `next` is a string or null (never ""),
 * no page holds more than 100 items, the walk ends, no item repeats.
 */
import { fail, pass, type Verdict } from '../verdict.ts';

export const MAX_PAGE_ITEMS = 100;

export interface PageRecord {
  readonly atMs: number;
  /** Items on the page; null when the page could not be read. */
  readonly items: number | null;
  /** "string", "null", or what was wrong with it. */
  readonly next: string;
  /** What made the page unreadable or broke a rule (null = fine). */
  readonly problem: string | null;
}

export interface WalkObservation {
  readonly method: string;
  /** The array field used (given, or found as the only array in `data`). */
  readonly field: string | null;
  readonly pages: readonly PageRecord[];
  /** How the walk ended: next was null, a problem stopped it, a cursor came back, or the page cap. */
  readonly end: 'null-cursor' | 'problem' | 'cursor-cycle' | 'page-cap';
  readonly items: number;
  /** Items seen more than once (by their JSON text), and the first such item. */
  readonly repeatedItems: number;
  readonly firstRepeat: string | null;
}

function walkProblems(walk: WalkObservation): string[] {
  const problems: string[] = [];
  const pageProblem = walk.pages.findIndex((p) => p.problem !== null);
  if (pageProblem !== -1) problems.push(`page ${pageProblem + 1}: ${walk.pages[pageProblem]!.problem}`);
  if (walk.end === 'cursor-cycle')
    problems.push(`page ${walk.pages.length} returned a cursor already seen: the walk would never end`);
  if (walk.repeatedItems > 0) problems.push(`${walk.repeatedItems} item(s) appeared twice, first ${walk.firstRepeat}`);
  return problems;
}

export function judgePagination(walks: readonly WalkObservation[]): Verdict {
  const evidence = {
    walks: walks.map((w) => ({
      method: w.method,
      field: w.field,
      pages: w.pages.length,
      items: w.items,
      end: w.end,
      pageSizes: w.pages.map((p) => p.items),
      ...(w.repeatedItems > 0 ? { repeatedItems: w.repeatedItems, firstRepeat: w.firstRepeat } : {}),
      ...(w.pages.some((p) => p.problem)
        ? {
            problems: w.pages
              .filter((p) => p.problem)
              .map((p) => ({ atMs: p.atMs, problem: p.problem }))
              .slice(0, 5),
          }
        : {}),
    })),
  };
  const problems = walks.flatMap((w) => walkProblems(w).map((p) => `${w.method}: ${p}`));
  if (problems.length > 0) return fail(problems.join('; '), evidence);
  const capped = walks.filter((w) => w.end === 'page-cap');
  const notes = capped.map(
    (w) => `${w.method}: stopped after ${w.pages.length} pages without reaching the end; the rules held on every page`,
  );
  const summary = walks
    .map(
      (w) =>
        `${w.method}: ${w.pages.length} page(s), ${w.items} items${w.end === 'page-cap' ? ' (stopped at the page cap)' : ', ended with next: null'}`,
    )
    .join('; ');
  return pass(`${summary}; no page over ${MAX_PAGE_ITEMS} items, no item repeated`, evidence, notes);
}
